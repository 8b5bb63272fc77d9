/**
 * Helpers to declare a built-in resource: defaults for everything the real registry sets the same way
 * for most kinds, so each kind file lists only what differs.
 */
import type { GenerationRule, PrinterColumn, ResourceType, Strategy } from '../registry.js';
import { modelSchema } from '../schema/builtin.js';
import { CREATION_TIMESTAMP_DESCRIPTION, age } from '../table.js';
import { isObject, type JsonObject } from '../schema/types.js';

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** client-node model class (e.g. `V1Deployment`). */
  model: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  status?: boolean;
  scale?: ResourceType['subresources']['scale'];
  log?: boolean;
  generation?: GenerationRule;
  strategy?: Strategy;
  columns?: PrinterColumn[];
  returnDeletedObject?: boolean;
  allowCreateOnUpdate?: boolean;
  fieldSelectors?: ResourceType['fieldSelectors'];
  storageKey?: string;
  storageApiVersion?: string;
  convert?: ResourceType['convert'];
  nameValidator?: ResourceType['nameValidator'];
}

export function builtin(spec: BuiltinSpec): ResourceType {
  const apiVersion = spec.group ? `${spec.group}/${spec.version}` : spec.version;
  return {
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    singular: spec.kind.toLowerCase(),
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    verbs: spec.verbs ?? ALL_VERBS,
    subresources: { status: spec.status ?? false, scale: spec.scale, log: spec.log },
    builtin: true,
    storageKey: spec.storageKey ?? `${spec.resource}.${spec.group}`,
    storageApiVersion: spec.storageApiVersion ?? apiVersion,
    schema: modelSchema(spec.model),
    printerColumns: spec.columns ?? [ageColumn()],
    generation: spec.generation ?? 'none',
    strategy: spec.strategy ?? {},
    returnDeletedObject: spec.returnDeletedObject ?? false,
    allowUnconditionalUpdate: true,
    allowCreateOnUpdate: spec.allowCreateOnUpdate ?? false,
    fieldSelectors: spec.fieldSelectors ?? {},
    convert: spec.convert,
    preferredVersion: spec.version,
    nameValidator: spec.nameValidator,
  };
}

export function ageColumn(): PrinterColumn {
  return {
    name: 'Age',
    type: 'string',
    description: CREATION_TIMESTAMP_DESCRIPTION,
    cell: (o, now) => age(meta(o).creationTimestamp, now),
  };
}

export function createdAtColumn(): PrinterColumn {
  return {
    name: 'Created At',
    type: 'date',
    description: CREATION_TIMESTAMP_DESCRIPTION,
    cell: (o) => meta(o).creationTimestamp ?? null,
  };
}

export function col(
  name: string,
  type: PrinterColumn['type'],
  cell: (o: JsonObject, now: number) => unknown,
  priority = 0,
): PrinterColumn {
  return { name, type, priority, cell };
}

export function meta(o: JsonObject): JsonObject {
  return isObject(o.metadata) ? o.metadata : {};
}

export function obj(v: unknown): JsonObject {
  return isObject(v) ? v : {};
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Sets `o[key]` to `value` when it is absent. */
export function dflt(o: JsonObject, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

/** Status subresource rules shared by built-ins: create clears status; main writes keep the old status. */
export function statusStrategy(initialStatus: () => JsonObject = () => ({})): Strategy {
  return {
    prepareForCreate(o) {
      o.status = initialStatus();
    },
    prepareForUpdate(n, old) {
      if (old.status === undefined) delete n.status;
      else n.status = old.status;
    },
  };
}

/** Combines strategies: hooks run in order, validations concatenate. */
export function combine(...ss: Strategy[]): Strategy {
  return {
    prepareForCreate: (o, ctx) => ss.forEach((s) => s.prepareForCreate?.(o, ctx)),
    prepareForUpdate: (n, o, ctx) => ss.forEach((s) => s.prepareForUpdate?.(n, o, ctx)),
    defaults: (o) => ss.forEach((s) => s.defaults?.(o)),
    validate: (o) => ss.flatMap((s) => s.validate?.(o) ?? []),
    validateUpdate: (n, o) => ss.flatMap((s) => s.validateUpdate?.(n, o) ?? []),
  };
}
