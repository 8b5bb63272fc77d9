/**
 * ObjectMeta validation on create and update (apimachinery ValidateObjectMeta / ValidateObjectMetaUpdate).
 */
import { fieldErrors, type FieldError } from '../status-errors.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';
import { dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from './names.js';
import { dns1123LabelErrors } from './names.js';

/** Validates a name; `prefix` is true for generateName (a trailing dash is allowed). */
export type NameValidator = (name: string, prefix: boolean) => string[];

export const subdomainName: NameValidator = (name, prefix) =>
  dns1123SubdomainErrors(prefix ? maskTrailingDash(name) : name);
export const labelName: NameValidator = (name, prefix) => dns1123LabelErrors(prefix ? maskTrailingDash(name) : name);

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

export function validateObjectMeta(meta: JsonObject, namespaced: boolean, nameFn: NameValidator): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName)
    for (const m of nameFn(generateName, true))
      errs.push(fieldErrors.invalid('metadata.generateName', generateName, m));
  if (!name) errs.push(fieldErrors.required('metadata.name', 'name or generateName is required'));
  else for (const m of nameFn(name, false)) errs.push(fieldErrors.invalid('metadata.name', name, m));
  const ns = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (namespaced) {
    if (!ns) errs.push(fieldErrors.required('metadata.namespace'));
    else for (const m of dns1123LabelErrors(ns)) errs.push(fieldErrors.invalid('metadata.namespace', ns, m));
  } else if (ns) {
    errs.push(fieldErrors.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations));
  errs.push(...validateOwnerReferences(meta.ownerReferences));
  errs.push(...validateFinalizers(meta.finalizers));
  return errs;
}

export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(labels)) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldErrors.invalid(field, k, m));
    const value = typeof v === 'string' ? v : String(v);
    for (const m of labelValueErrors(value)) errs.push(fieldErrors.invalid(field, value, m));
  }
  return errs;
}

function validateAnnotations(ann: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(ann)) return errs;
  let size = 0;
  for (const [k, v] of Object.entries(ann)) {
    for (const m of qualifiedNameErrors(k.toLowerCase())) errs.push(fieldErrors.invalid('metadata.annotations', k, m));
    size += k.length + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE) {
    errs.push({
      type: 'FieldValueTooLong',
      field: 'metadata.annotations',
      value: '',
      detail: `must have at most ${TOTAL_ANNOTATION_SIZE} bytes`,
    });
  }
  return errs;
}

function validateOwnerReferences(refs: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  const controllers: string[] = [];
  for (const r of refs) {
    if (!isObject(r)) continue;
    const f = 'metadata.ownerReferences';
    if (!r.apiVersion)
      errs.push(fieldErrors.invalid(`${f}.apiVersion`, r.apiVersion ?? '', 'version must not be empty'));
    if (!r.kind) errs.push(fieldErrors.invalid(`${f}.kind`, r.kind ?? '', 'kind must not be empty'));
    if (!r.name) errs.push(fieldErrors.invalid(`${f}.name`, r.name ?? '', 'name must not be empty'));
    if (!r.uid) errs.push(fieldErrors.invalid(`${f}.uid`, r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers.push(`${String(r.kind)}/${String(r.name)}`);
  }
  if (controllers.length > 1) {
    errs.push(
      fieldErrors.invalid(
        'metadata.ownerReferences',
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return errs;
}

function validateFinalizers(finalizers: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  for (const f of finalizers) {
    const s = typeof f === 'string' ? f : String(f);
    for (const m of qualifiedNameErrors(s)) errs.push(fieldErrors.invalid('metadata.finalizers', s, m));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(
      fieldErrors.invalid(
        'metadata.finalizers',
        finalizers,
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return errs;
}

/** Update rules that survive BeforeUpdate's copying of server-owned fields. */
export function validateObjectMetaUpdate(meta: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.uid !== old.uid) errs.push(fieldErrors.immutable('metadata.uid', meta.uid ?? ''));
  if (old.deletionTimestamp) {
    const before = new Set(Array.isArray(old.finalizers) ? (old.finalizers as string[]) : []);
    const added = (Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : []).filter((f) => !before.has(f));
    if (added.length) {
      errs.push(
        fieldErrors.forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  return errs;
}

export function sameStringArray(a: unknown, b: unknown): boolean {
  return jsonEqual(a ?? [], b ?? []);
}
