/**
 * Core v1 kinds operators touch: Namespace, ConfigMap, Secret, ServiceAccount.
 * (Service, Pod and Event have their own files.)
 */
import { badRequest, fieldErrors, type FieldError } from '../status-errors.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';
import { configMapKeyErrors } from '../validation/names.js';
import { labelName } from '../validation/metadata.js';
import { ageColumn, arr, builtin, col, dflt, meta, obj } from './define.js';

const MAX_DATA_BYTES = 1024 * 1024;

export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function validateDataKeys(o: JsonObject, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  const seen = new Set<string>();
  for (const f of fields) {
    if (!isObject(o[f])) continue;
    for (const [k, v] of Object.entries(o[f] as JsonObject)) {
      for (const m of configMapKeyErrors(k)) errs.push(fieldErrors.invalid(`${f}[${k}]`, k, m));
      if (seen.has(k)) errs.push(fieldErrors.invalid(`${f}[${k}]`, k, 'duplicate of key present in ' + fields[0]));
      seen.add(k);
      total += typeof v === 'string' ? Buffer.byteLength(v) : 0;
    }
  }
  if (total > MAX_DATA_BYTES)
    errs.push({ type: 'FieldValueTooLong', field: '', value: '', detail: `must have at most ${MAX_DATA_BYTES} bytes` });
  return errs;
}

/** `immutable: true` ConfigMaps and Secrets reject data changes. */
function immutableData(fields: string[]) {
  return (n: JsonObject, old: JsonObject): FieldError[] => {
    const errs: FieldError[] = [];
    if (old.immutable === true) {
      if (n.immutable !== true)
        errs.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
      for (const f of fields)
        if (!jsonEqual(n[f] ?? {}, old[f] ?? {}))
          errs.push(fieldErrors.forbidden(f, 'field is immutable when `immutable` is set'));
    }
    return errs;
  };
}

function checkBase64(o: JsonObject, field: string): void {
  if (!isObject(o[field])) return;
  for (const [k, v] of Object.entries(o[field] as JsonObject)) {
    if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 === 1) {
      throw badRequest(
        `illegal base64 data at input byte ${typeof v === 'string' ? Math.max(0, v.search(/[^A-Za-z0-9+/=]/)) : 0} (${field}[${k}])`,
      );
    }
  }
}

export const namespaces = builtin({
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  model: 'V1Namespace',
  namespaced: false,
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  status: true,
  returnDeletedObject: true,
  nameValidator: labelName,
  fieldSelectors: { 'status.phase': (o) => obj(o.status).phase as string | undefined },
  columns: [col('Status', 'string', (o) => obj(o.status).phase ?? ''), ageColumn()],
  strategy: {
    prepareForCreate(o) {
      o.status = { phase: 'Active' };
      o.spec = { finalizers: ['kubernetes'] };
    },
    prepareForUpdate(n, old) {
      n.status = old.status;
      n.spec = old.spec; // spec.finalizers change only through /finalize
    },
    defaults(o) {
      const m = meta(o);
      if (typeof m.name === 'string' && m.name) m.labels = { ...obj(m.labels), [NAMESPACE_NAME_LABEL]: m.name };
    },
  },
});

export const configmaps = builtin({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  model: 'V1ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  columns: [
    col('Data', 'integer', (o) => Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length),
    ageColumn(),
  ],
  strategy: {
    defaults: (o) => checkBase64(o, 'binaryData'),
    validate: (o) => validateDataKeys(o, ['data', 'binaryData']),
    validateUpdate: immutableData(['data', 'binaryData']),
  },
});

export const secrets = builtin({
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  model: 'V1Secret',
  namespaced: true,
  fieldSelectors: { type: (o) => o.type as string | undefined },
  columns: [
    col('Type', 'string', (o) => o.type ?? ''),
    col('Data', 'integer', (o) => Object.keys(obj(o.data)).length),
    ageColumn(),
  ],
  strategy: {
    defaults(o) {
      dflt(o, 'type', 'Opaque');
      checkBase64(o, 'data');
      // stringData is write-only: it is folded into data (winning over data) and never stored.
      if (isObject(o.stringData)) {
        const data = { ...obj(o.data) };
        for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
        o.data = data;
      }
      delete o.stringData;
    },
    validate: (o) => validateDataKeys(o, ['data']),
    validateUpdate(n, old) {
      const errs = immutableData(['data'])(n, old);
      if (n.type !== old.type) errs.push(fieldErrors.immutable('type', n.type ?? ''));
      return errs;
    },
  },
});

export const serviceaccounts = builtin({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  model: 'V1ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  returnDeletedObject: true,
  columns: [col('Secrets', 'string', (o) => arr(o.secrets).length), ageColumn()],
});

export const CORE_KINDS = [namespaces, configmaps, secrets, serviceaccounts];
