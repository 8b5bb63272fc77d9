/**
 * Server-side printing: the `meta.k8s.io/v1 Table` that `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Custom resources use their
 * `additionalPrinterColumns` (default: Age); built-in kinds use the columns in `kinds/`.
 */
import { evalJsonPath } from './jsonpath.js';
import type { PrinterColumn, ResourceType } from './registry.js';
import { isObject, type JsonObject } from './schema/types.js';
import { badRequest } from './status-errors.js';

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  includeObject: IncludeObject;
  noHeaders: boolean;
  nowMs: number;
}

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  throw badRequest(`Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

/** apimachinery duration.HumanDuration: the AGE column's text. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

export function age(ts: unknown, nowMs: number): string {
  if (typeof ts !== 'string' || !ts) return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(nowMs - t);
}

export function columnsFor(type: ResourceType): PrinterColumn[] {
  return [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
    ...type.printerColumns,
  ];
}

function jsonPathCell(col: PrinterColumn, obj: JsonObject, nowMs: number): unknown {
  const results = evalJsonPath(obj, col.jsonPath!);
  if (results.length === 0 || results[0] === undefined) return null;
  const v = results[0];
  switch (col.type) {
    case 'string':
      if (v === null) return null;
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return typeof v === 'string' ? age(v, nowMs) : null;
    default:
      return null;
  }
}

function rowObject(obj: JsonObject, include: IncludeObject): JsonObject | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function toTable(
  type: ResourceType,
  objects: JsonObject[],
  listMeta: JsonObject,
  opts: TableOptions,
): JsonObject {
  const cols = columnsFor(type);
  const rows = objects.map((obj) => {
    const meta = isObject(obj.metadata) ? obj.metadata : {};
    const cells = cols.map((col, i) => {
      if (i === 0) return meta.name ?? '';
      if (col.cell) return col.cell(obj, opts.nowMs);
      return jsonPathCell(col, obj, opts.nowMs);
    });
    const row: JsonObject = { cells };
    const o = rowObject(obj, opts.includeObject);
    if (o) row.object = o;
    return row;
  });
  const table: JsonObject = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta };
  table.columnDefinitions = opts.noHeaders
    ? null
    : cols.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      }));
  table.rows = rows;
  return table;
}
