/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition: validation of names, versions and structural
 * schemas, defaulting, and the status the real controllers write (NamesAccepted, Established,
 * acceptedNames, storedVersions) — set synchronously so the kind is served as soon as it is created.
 */
import type { StrategyContext } from '../registry.js';
import { fieldErrors, type FieldError } from '../status-errors.js';
import { isObject, type JSONSchemaProps, type JsonObject } from '../schema/types.js';
import { dns1035LabelErrors, dns1123SubdomainErrors } from '../validation/names.js';
import { crdNames } from '../crd/resource-type.js';
import { arr, builtin, createdAtColumn, dflt, obj } from './define.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Sets a condition, keeping lastTransitionTime when the status does not change. */
export function setCondition(status: JsonObject, c: Omit<Condition, 'lastTransitionTime'>, now: string): void {
  const list = arr(status.conditions).map(obj) as JsonObject[];
  const i = list.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? list[i]! : undefined;
  const next = {
    type: c.type,
    status: c.status,
    lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now,
    reason: c.reason,
    message: c.message,
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  status.conditions = list;
}

function acceptedNames(crd: JsonObject): JsonObject {
  const n = crdNames(crd);
  const out: JsonObject = { plural: n.plural, singular: n.singular, kind: n.kind, listKind: n.listKind };
  if (n.shortNames.length) out.shortNames = n.shortNames;
  if (n.categories.length) out.categories = n.categories;
  return out;
}

function storageVersion(crd: JsonObject): string | undefined {
  const v = arr(obj(crd.spec).versions)
    .map(obj)
    .find((x) => x.storage === true);
  return v ? String(v.name) : undefined;
}

function refreshStatus(crd: JsonObject, status: JsonObject, ctx: StrategyContext): JsonObject {
  status.acceptedNames = acceptedNames(crd);
  const stored = new Set(arr(status.storedVersions).map(String));
  const sv = storageVersion(crd);
  if (sv) stored.add(sv);
  status.storedVersions = [...stored];
  setCondition(
    status,
    { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
    ctx.now(),
  );
  setCondition(
    status,
    {
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    },
    ctx.now(),
  );
  return status;
}

function validateSchemaNode(s: unknown, path: string, root: boolean, errs: FieldError[]): void {
  if (!isObject(s)) return;
  const node = s as JSONSchemaProps;
  const open = node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
  if (!node.type && !open) {
    errs.push(
      fieldErrors.required(
        `${path}.type`,
        root ? 'must not be empty at the root' : 'must not be empty for specified object fields',
      ),
    );
  }
  if (root && node.type && node.type !== 'object')
    errs.push(fieldErrors.invalid(`${path}.type`, node.type, 'must be object at the root'));
  const allowed = ['object', 'array', 'string', 'integer', 'number', 'boolean'];
  if (node.type && !allowed.includes(node.type))
    errs.push(fieldErrors.notSupported(`${path}.type`, node.type, allowed));
  if (node.type === 'array' && !node.items && !open)
    errs.push(fieldErrors.required(`${path}.items`, 'must be specified'));
  for (const [k, v] of Object.entries(node.properties ?? {})) {
    if (root && k === 'metadata' && isObject(v)) continue; // metadata: only name/generateName may be restricted
    validateSchemaNode(v, `${path}.properties[${k}]`, false, errs);
  }
  if (node.items) validateSchemaNode(node.items, `${path}.items`, false, errs);
  if (isObject(node.additionalProperties))
    validateSchemaNode(node.additionalProperties, `${path}.additionalProperties`, false, errs);
  if (node.additionalProperties !== undefined && node.properties) {
    errs.push(
      fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'),
    );
  }
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];

function validateCrd(crd: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const group = String(spec.group ?? '');
  const name = String(obj(crd.metadata).name ?? '');
  if (!group) errs.push(fieldErrors.required('spec.group'));
  else {
    for (const m of dns1123SubdomainErrors(group)) errs.push(fieldErrors.invalid('spec.group', group, m));
    if (!group.includes('.'))
      errs.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const plural = String(names.plural ?? '');
  if (name && plural && group && name !== `${plural}.${group}`)
    errs.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (!plural) errs.push(fieldErrors.required('spec.names.plural'));
  else {
    const e = dns1035LabelErrors(plural);
    if (e.length) errs.push(fieldErrors.invalid('spec.names.plural', plural, e.join(',')));
  }
  const kind = String(names.kind ?? '');
  if (!kind) errs.push(fieldErrors.required('spec.names.kind'));
  else {
    const e = dns1035LabelErrors(kind.toLowerCase());
    if (e.length)
      errs.push(
        fieldErrors.invalid('spec.names.kind', kind, `may have mixed case, but should otherwise match: ${e.join(',')}`),
      );
  }
  if (!['Namespaced', 'Cluster'].includes(String(spec.scope)))
    errs.push(fieldErrors.notSupported('spec.scope', spec.scope ?? '', ['Cluster', 'Namespaced']));
  const versions = arr(spec.versions).map(obj);
  if (versions.length === 0)
    errs.push(fieldErrors.invalid('spec.versions', [], 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    const vn = String(v.name ?? '');
    if (!vn) errs.push(fieldErrors.required(`${p}.name`));
    else if (seen.has(vn)) errs.push(fieldErrors.duplicate(`${p}.name`, vn));
    seen.add(vn);
    if (v.storage === true) storage++;
    const schema = obj(v.schema).openAPIV3Schema;
    if (!isObject(schema)) errs.push(fieldErrors.required(`${p}.schema.openAPIV3Schema`, 'schemas are required'));
    else validateSchemaNode(schema, `${p}.schema.openAPIV3Schema`, true, errs);
    arr(v.additionalPrinterColumns)
      .map(obj)
      .forEach((c, j) => {
        const cp = `${p}.additionalPrinterColumns[${j}]`;
        if (!c.name) errs.push(fieldErrors.required(`${cp}.name`));
        if (!COLUMN_TYPES.includes(String(c.type)))
          errs.push(fieldErrors.notSupported(`${cp}.type`, c.type ?? '', COLUMN_TYPES));
        if (!c.jsonPath) errs.push(fieldErrors.required(`${cp}.jsonPath`));
      });
  });
  if (versions.length && storage !== 1)
    errs.push(
      fieldErrors.invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    );
  if (versions.length && !versions.some((v) => v.served === true))
    errs.push(
      fieldErrors.invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have at least one version served',
      ),
    );
  return errs;
}

export const customresourcedefinitions = builtin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  model: 'V1CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  status: true,
  generation: 'spec',
  returnDeletedObject: true,
  columns: [createdAtColumn()],
  strategy: {
    defaults(o) {
      if (!isObject(o.spec)) return;
      const spec = o.spec as JsonObject;
      const names = isObject(spec.names) ? (spec.names as JsonObject) : undefined;
      if (names && typeof names.kind === 'string') {
        dflt(names, 'singular', names.kind.toLowerCase());
        dflt(names, 'listKind', `${names.kind}List`);
      }
      dflt(spec, 'conversion', { strategy: 'None' });
    },
    prepareForCreate(o, ctx) {
      o.status = refreshStatus(o, {}, ctx);
    },
    prepareForDelete(o, ctx) {
      const m = obj(o.metadata);
      const fin = arr(m.finalizers).map(String);
      if (!fin.includes(CRD_CLEANUP_FINALIZER)) m.finalizers = [...fin, CRD_CLEANUP_FINALIZER];
      o.metadata = m;
      const status = JSON.parse(JSON.stringify(obj(o.status))) as JsonObject;
      setCondition(
        status,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
        ctx.now(),
      );
      o.status = status;
    },
    prepareForUpdate(n, old, ctx) {
      n.status = refreshStatus(n, JSON.parse(JSON.stringify(obj(old.status))) as JsonObject, ctx);
    },
    validate: validateCrd,
    validateUpdate(n, old) {
      const errs: FieldError[] = [];
      const ns = obj(n.spec);
      const os = obj(old.spec);
      if (ns.scope !== os.scope) errs.push(fieldErrors.immutable('spec.scope', ns.scope ?? ''));
      if (ns.group !== os.group) errs.push(fieldErrors.immutable('spec.group', ns.group ?? ''));
      return errs;
    },
  },
});
