/**
 * PATCH for the test API server: the four patch types the apiserver accepts, with its status codes and
 * messages, plus the managedFields bookkeeping every write needs (`trackUpdate`).
 */
import { LAST_APPLIED_ANNOTATION, managerFromUserAgent, serverSideApply, trackUpdate as track } from './apply.js';
import { decodeApplyBody, decodeJsonBody } from './decode.js';
import { invalidOptions, invalidPatchedObject, notFound, unsupportedMediaType, type OptionError } from './errors.js';
import { applyJsonPatch } from './jsonpatch.js';
import type { ManagedFieldsEntry } from './managed.js';
import { jsonMergePatch } from './merge.js';
import { resetFields, type TrackContext } from './ownership.js';
import { strategicMergePatch } from './strategic.js';
import { builtinHasStatus, builtinTypeOrLoose, objectMeta } from './strategic-meta.js';
import { DEDUCED, SCALAR, fromOpenApiSchema, type MapType, type SchemaLike, type TypeNode } from './types.js';
import { isObject, jsonKind, type JsonObject } from './values.js';

export { PatchError, isPatchError, type PatchCause, type PatchStatus, type PatchErrorCode } from './errors.js';
export type { ManagedFieldsEntry } from './managed.js';
export type { SchemaLike } from './types.js';
export { patchExtensions, type PatchExtensions } from './strategic-meta.js';
export { LAST_APPLIED_ANNOTATION, managerFromUserAgent };

export const PatchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** What the apiserver lists in its 415, in its order. */
export const BUILTIN_PATCH_TYPES = [PatchTypes.json, PatchTypes.merge, PatchTypes.strategic, PatchTypes.apply] as const;
export const CUSTOM_RESOURCE_PATCH_TYPES = [PatchTypes.json, PatchTypes.merge, PatchTypes.apply] as const;

export interface PatchKind {
  group: string;
  version: string;
  kind: string;
  /** Built-in kinds accept strategic merge patch; custom resources do not. */
  builtin: boolean;
}

export interface ApplyPatchOptions {
  /** The request's Content-Type; parameters after `;` are ignored. */
  patchType: string;
  /** The stored object; null or undefined when it does not exist. */
  current: JsonObject | null | undefined;
  /** The raw body (string or bytes) or an already decoded value. */
  patch: unknown;
  kind: PatchKind;
  /** The custom resource version's openAPIV3Schema (list types and keys shape merging). */
  schema?: SchemaLike;
  /** The `fieldManager` query parameter; required for apply. */
  fieldManager?: string;
  /** The `force` query parameter; undefined when the request did not give it. */
  force?: boolean;
  /** `status` for PATCH …/status. */
  subresource?: string;
  /** The object does not exist yet (apply creates it). */
  isCreate?: boolean;
  /**
   * Whether the kind has a status subresource: then writes to the main resource keep `.status` and
   * writes to `/status` change only `.status`.
   * @default true for built-in kinds that have a status, false for custom resources
   */
  statusSubresource?: boolean;
  /** Names the manager of non-apply patches that give no fieldManager (its part before `/`). */
  userAgent?: string;
  /** Clock for managedFields timestamps. @default () => new Date() */
  now?: () => Date;
}

export interface PatchResult {
  /** The object to store, `metadata.managedFields` included. */
  object: JsonObject;
  managedFields: ManagedFieldsEntry[];
  /** True when an apply created the object. */
  created: boolean;
}

/**
 * Applies one PATCH request to `current`. Throws PatchError carrying the status the apiserver answers;
 * the caller still checks the name, namespace and resourceVersion of the result and stores it.
 */
export function applyPatch(opts: ApplyPatchOptions): PatchResult {
  const contentType = opts.patchType.split(';')[0]!.trim().toLowerCase();
  const accepted: readonly string[] = opts.kind.builtin ? BUILTIN_PATCH_TYPES : CUSTOM_RESOURCE_PATCH_TYPES;
  if (!accepted.includes(contentType)) throw unsupportedMediaType(accepted);
  validateOptions(contentType, opts);
  const ctx = trackContext(opts.kind, opts.schema, opts);

  if (contentType === PatchTypes.apply) {
    const live = opts.isCreate ? null : (opts.current ?? null);
    const config = decodeApplyBody(opts.patch);
    const apiVersion = opts.kind.group ? `${opts.kind.group}/${opts.kind.version}` : opts.kind.version;
    const r = serverSideApply(live, config, {
      ...ctx,
      manager: opts.fieldManager!,
      force: opts.force === true,
      apiVersion,
      kind: opts.kind.kind,
    });
    return { ...r, created: live === null };
  }

  const current = opts.current;
  if (!current || opts.isCreate) throw notFound(`the ${opts.kind.kind} to patch does not exist`);
  let patched: unknown;
  if (contentType === PatchTypes.merge)
    patched = jsonMergePatch(current, decodeJsonBody(opts.patch, 'Invalid JSON Patch'));
  else if (contentType === PatchTypes.json) patched = applyJsonPatch(current, decodeJsonBody(opts.patch));
  else patched = strategicMergePatch(current, decodeJsonBody(opts.patch), ctx.type);
  if (!isObject(patched)) {
    throw invalidPatchedObject(
      JSON.stringify(patched),
      `json: cannot unmarshal ${jsonKind(patched)} into Go value of type map[string]interface {}`,
    );
  }
  const object = resetFields(patched, current, ctx);
  const manager = opts.fieldManager || managerFromUserAgent(opts.userAgent);
  const managedFields = track(current, object, manager, ctx);
  setManagedFields(object, managedFields);
  return { object, managedFields, created: false };
}

export interface TrackUpdateOptions {
  /** The kind written; defaults to the apiVersion and kind of `newObj`, looked up as a built-in. */
  kind?: PatchKind;
  schema?: SchemaLike;
  subresource?: string;
  statusSubresource?: boolean;
  now?: () => Date;
}

/**
 * managedFields for a create (oldObj null), update or non-apply patch by `manager`: call it on every
 * POST and PUT with the object about to be stored, and store the result as `metadata.managedFields`.
 */
export function trackUpdate(
  oldObj: JsonObject | null | undefined,
  newObj: JsonObject,
  manager: string,
  opts: TrackUpdateOptions = {},
): ManagedFieldsEntry[] {
  const kind = opts.kind ?? kindOf(newObj);
  return track(oldObj, newObj, manager, trackContext(kind, opts.schema, opts));
}

function kindOf(obj: JsonObject): PatchKind {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return { group: group!, version: version!, kind: typeof obj.kind === 'string' ? obj.kind : '', builtin: true };
}

const crTypes = new WeakMap<SchemaLike, TypeNode>();
const UNTYPED_CR: MapType = {
  kind: 'map',
  fields: { apiVersion: SCALAR, kind: SCALAR, metadata: objectMeta },
  elem: DEDUCED,
};

function trackContext(
  kind: PatchKind,
  schema: SchemaLike | undefined,
  o: { subresource?: string; statusSubresource?: boolean; now?: () => Date },
): TrackContext {
  let type: TypeNode;
  if (kind.builtin) type = builtinTypeOrLoose(kind.group, kind.kind);
  else if (schema) {
    type = crTypes.get(schema) ?? fromOpenApiSchema(schema, objectMeta);
    crTypes.set(schema, type);
  } else type = UNTYPED_CR;
  const ctx: TrackContext = {
    type,
    statusSubresource: o.statusSubresource ?? (kind.builtin && builtinHasStatus(kind.group, kind.kind)),
    now: o.now ?? (() => new Date()),
  };
  if (o.subresource) ctx.subresource = o.subresource;
  return ctx;
}

function setManagedFields(object: JsonObject, entries: ManagedFieldsEntry[]): void {
  if (!isObject(object.metadata)) object.metadata = {};
  const meta = object.metadata as JsonObject;
  if (entries.length) meta.managedFields = entries;
  else delete meta.managedFields;
}

/** @default 128 — FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_LENGTH = 128;

/** ValidatePatchOptions. */
function validateOptions(contentType: string, opts: ApplyPatchOptions): void {
  const errs: OptionError[] = [];
  if (contentType !== PatchTypes.apply) {
    if (opts.force !== undefined)
      errs.push({
        field: 'force',
        type: 'FieldValueForbidden',
        body: 'Forbidden: may not be specified for non-apply patch',
      });
  } else if (!opts.fieldManager) {
    errs.push({
      field: 'fieldManager',
      type: 'FieldValueRequired',
      body: 'Required value: is required for apply patch',
    });
  }
  const fm = opts.fieldManager ?? '';
  if (Buffer.byteLength(fm) > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({
      field: 'fieldManager',
      type: 'FieldValueTooLong',
      body: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
    });
  }
  [...fm].forEach((ch, i) => {
    if (/[\p{C}]/u.test(ch)) {
      const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      errs.push({
        field: 'fieldManager',
        type: 'FieldValueInvalid',
        body: `Invalid value: ${JSON.stringify(fm)}: invalid character ${code} (at position ${i})`,
      });
    }
  });
  if (errs.length) throw invalidOptions(errs);
}
