/**
 * The object store: the generic registry of the real server (create, update, get, list) applied to every
 * resource type — system fields, generation rules, status subresource rules, optimistic concurrency,
 * no-op writes, validation and admission. HTTP routes and the in-process API (`cluster.store`) both call
 * it, so behaviour cannot differ between them. Deletion lives in `delete.ts`, watches in `watch.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { TestClock } from '../clock.js';
import type { Registry, ResourceType, StrategyContext } from '../registry.js';
import { validateSchema } from '../schema/validate.js';
import { isObject, type JsonObject } from '../schema/types.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  fieldErrors,
  forbidden,
  GoRepr,
  invalid,
  methodNotSupported,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  type FieldError,
  type GroupResource,
} from '../status-errors.js';
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from '../validation/metadata.js';
import { decodeBody, type FieldValidation } from './decode.js';
import { listObjects } from './list.js';
import type { QueryOptions } from './query.js';
import { generationChanged, hasSpecFinalizers, isEmpty, sameObject } from './update-rules.js';
import type { VersionedStore } from './versioned.js';

export interface WriteOptions {
  dryRun?: boolean;
  /** @default 'Strict' in-process; the HTTP layer passes the request's value (default Warn). */
  fieldValidation?: FieldValidation;
  fieldManager?: string;
  /** Names the manager when fieldManager is not given (the part before '/'). */
  userAgent?: string;
  /** The object already carries the managedFields to store (PATCH computed them). */
  keepManagedFields?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  subresource?: 'status' | 'scale';
}

export interface WriteResult {
  object: JsonObject;
  warnings: string[];
  /** True when an update created the object (kinds that allow create-on-update). */
  created?: boolean;
}

export interface ListOptions extends QueryOptions {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: JsonObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Admission checks that run before storage (NamespaceLifecycle). */
export type Admission = (type: ResourceType, verb: 'create' | 'update' | 'delete', obj: JsonObject) => void;

/** Lets the PATCH helper keep managedFields in step with non-apply writes. */
export type ManagedFieldsHook = (args: {
  type: ResourceType;
  old: JsonObject | undefined;
  updated: JsonObject;
  manager: string;
  userAgent?: string;
  subresource?: string;
}) => void;

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export function groupResource(type: ResourceType): GroupResource {
  return { group: type.group, resource: type.resource };
}

export function objectKey(type: ResourceType, namespace: string | undefined, name: string): string {
  return type.namespaced ? `${namespace ?? ''}/${name}` : name;
}

export function metaOf(o: JsonObject): JsonObject {
  if (!isObject(o.metadata)) o.metadata = {};
  return o.metadata as JsonObject;
}

export class ObjectStore {
  admission: Admission[] = [];
  managedFields?: ManagedFieldsHook;

  constructor(
    readonly registry: Registry,
    readonly versioned: VersionedStore,
    readonly clock: TestClock,
  ) {}

  get ctx(): StrategyContext {
    return { now: () => this.clock.nowIso() };
  }

  checkVerb(type: ResourceType, verb: string): void {
    if (!type.verbs.includes(verb)) throw methodNotSupported(groupResource(type), verb);
  }

  /** The object as clients of `type`'s version see it. */
  fromStored(type: ResourceType, stored: JsonObject): JsonObject {
    if (type.convert) return type.convert.fromStorage(stored);
    return stored;
  }

  toStored(type: ResourceType, o: JsonObject): JsonObject {
    return type.convert ? type.convert.toStorage(o) : o;
  }

  getStored(type: ResourceType, namespace: string | undefined, name: string): JsonObject | undefined {
    return this.versioned.get(type.storageKey, objectKey(type, namespace, name));
  }

  get(type: ResourceType, namespace: string | undefined, name: string): JsonObject {
    this.checkVerb(type, 'get');
    const stored = this.getStored(type, namespace, name);
    if (!stored) throw notFound(groupResource(type), name);
    return this.fromStored(type, stored);
  }

  list(type: ResourceType, opts: ListOptions = {}): ListResult {
    this.checkVerb(type, 'list');
    return listObjects(this, type, opts);
  }

  private generateName(type: ResourceType, namespace: string | undefined, base: string): string {
    const prefix = base.length > 58 ? base.slice(0, 58) : base;
    for (;;) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
      const name = prefix + suffix;
      if (!this.getStored(type, namespace, name)) return name;
    }
  }

  /** Namespace of the request vs the object (rest.BeforeCreate / checkName). */
  private placeNamespace(type: ResourceType, namespace: string | undefined, meta: JsonObject): void {
    if (type.namespaced) {
      if (!namespace) throw badRequest('the server could not find the requested resource');
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
  }

  validate(type: ResourceType, o: JsonObject, old?: JsonObject): FieldError[] {
    const errs = validateObjectMeta(metaOf(o), type.namespaced, type.nameValidator ?? subdomainName);
    if (old) errs.push(...validateObjectMetaUpdate(metaOf(o), metaOf(old)));
    if (!type.builtin && type.schema) {
      // metadata is checked as ObjectMeta above; the schema sees the rest.
      const { metadata: _m, ...rest } = o;
      errs.push(
        ...validateSchema(rest, {
          ...type.schema,
          properties: { ...type.schema.properties, metadata: { type: 'object' } },
        }),
      );
    }
    errs.push(...(type.strategy.validate?.(o) ?? []));
    if (old) errs.push(...(type.strategy.validateUpdate?.(o, old) ?? []));
    return errs;
  }

  create(type: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions = {}): WriteResult {
    this.checkVerb(type, 'create');
    const { obj, warnings } = decodeBody(type, body, opts.fieldValidation ?? 'Strict');
    const meta = metaOf(obj);
    this.placeNamespace(type, namespace, meta);
    for (const a of this.admission) a(type, 'create', obj);
    if (!meta.name && typeof meta.generateName === 'string' && meta.generateName) {
      meta.name = this.generateName(type, namespace, meta.generateName);
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = this.clock.nowIso();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (type.generation === 'none') delete meta.generation;
    else meta.generation = 1;
    type.strategy.defaults?.(obj);
    type.strategy.prepareForCreate?.(obj, this.ctx);
    const errs = this.validate(type, obj);
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (errs.length) throw invalid(type.group, type.kind, name, errs);
    if (this.getStored(type, namespace, name)) throw alreadyExists(groupResource(type), name);
    if (!opts.keepManagedFields)
      this.managedFields?.({
        type,
        old: undefined,
        updated: obj,
        manager: opts.fieldManager ?? '',
        userAgent: opts.userAgent,
      });
    if (opts.dryRun) return { object: obj, warnings };
    const rv = this.versioned.nextRv();
    meta.resourceVersion = String(rv);
    const stored = this.toStored(type, obj);
    this.versioned.put(type.storageKey, objectKey(type, namespace, name), stored, rv);
    return { object: this.fromStored(type, stored), warnings };
  }

  /** A full replace (PUT) of the object or of its status. */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    opts: UpdateOptions = {},
  ): WriteResult {
    this.checkVerb(type, 'update');
    if (opts.subresource === 'status' && !type.subresources.status) throw notFound(groupResource(type), name);
    const decoded = decodeBody(type, body, opts.fieldValidation ?? 'Strict');
    const incoming = decoded.obj;
    const meta = metaOf(incoming);
    if (meta.name !== undefined && meta.name !== '' && meta.name !== name) {
      throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
    }
    meta.name = name;
    this.placeNamespace(type, namespace, meta);
    const stored = this.getStored(type, namespace, name);
    if (!stored) {
      if (!type.allowCreateOnUpdate || opts.subresource) throw notFound(groupResource(type), name);
      return {
        ...this.create(type, namespace, incoming, { ...opts, fieldValidation: 'Ignore' }),
        warnings: decoded.warnings,
        created: true,
      };
    }
    const old = this.fromStored(type, stored);
    const oldMeta = metaOf(old);
    const rvWanted = meta.resourceVersion;
    if (rvWanted === undefined || rvWanted === '') {
      if (!type.allowUnconditionalUpdate) {
        throw invalid(type.group, type.resource, name, [
          fieldErrors.invalid('metadata.resourceVersion', new GoRepr('0x0'), 'must be specified for an update'),
        ]);
      }
    } else if (String(rvWanted) !== oldMeta.resourceVersion) {
      throw conflict(groupResource(type), name, OPTIMISTIC_LOCK_MESSAGE);
    }
    const next = this.prepareUpdate(type, old, incoming, opts.subresource);
    for (const a of this.admission) a(type, 'update', next);
    return { ...this.commitUpdate(type, old, next, opts), warnings: decoded.warnings };
  }

  /** Builds the object an update stores: system fields from `old`, status rules, defaults, generation. */
  prepareUpdate(type: ResourceType, old: JsonObject, incoming: JsonObject, subresource?: string): JsonObject {
    const oldMeta = metaOf(old);
    let next: JsonObject;
    if (subresource === 'status') {
      // Status writes change status only (ResetObjectMetaForStatus keeps labels, finalizers, ...).
      next = JSON.parse(JSON.stringify(old)) as JsonObject;
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
      const inMeta = metaOf(incoming);
      if (inMeta.managedFields !== undefined) metaOf(next).managedFields = inMeta.managedFields;
    } else {
      next = incoming;
      const meta = metaOf(next);
      if (!meta.uid) meta.uid = oldMeta.uid;
      meta.creationTimestamp = oldMeta.creationTimestamp;
      if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (oldMeta.deletionGracePeriodSeconds !== undefined)
        meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
      else delete meta.deletionGracePeriodSeconds;
      if (meta.managedFields === undefined && oldMeta.managedFields !== undefined)
        meta.managedFields = oldMeta.managedFields;
      delete meta.selfLink;
      type.strategy.defaults?.(next);
      type.strategy.prepareForUpdate?.(next, old, this.ctx);
    }
    const meta = metaOf(next);
    if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
    else delete meta.generation;
    if (subresource !== 'status' && generationChanged(type, next, old))
      meta.generation = Number(oldMeta.generation ?? 0) + 1;
    meta.resourceVersion = oldMeta.resourceVersion;
    return next;
  }

  /** Validates and stores an update prepared from `old`; also used by PATCH. */
  commitUpdate(
    type: ResourceType,
    old: JsonObject,
    next: JsonObject,
    opts: UpdateOptions = {},
  ): Omit<WriteResult, 'warnings'> {
    const meta = metaOf(next);
    const name = String(meta.name);
    const namespace = type.namespaced ? String(meta.namespace) : undefined;
    const errs = this.validate(type, next, old);
    if (errs.length) throw invalid(type.group, type.kind, name, errs);
    if (!opts.keepManagedFields) {
      this.managedFields?.({
        type,
        old,
        updated: next,
        manager: opts.fieldManager ?? '',
        userAgent: opts.userAgent,
        subresource: opts.subresource,
      });
    }
    const key = objectKey(type, namespace, name);
    if (meta.deletionTimestamp && isEmpty(meta.finalizers) && !hasSpecFinalizers(type, next)) {
      // The last finalizer is gone: the update completes the deletion.
      if (opts.dryRun) return { object: next };
      const rv = this.versioned.nextRv();
      meta.resourceVersion = String(rv);
      this.versioned.remove(type.storageKey, key, this.toStored(type, next), rv);
      return { object: next };
    }
    if (sameObject(next, old)) return { object: old };
    if (opts.dryRun) return { object: next };
    const rv = this.versioned.nextRv();
    meta.resourceVersion = String(rv);
    const stored = this.toStored(type, next);
    this.versioned.put(type.storageKey, key, stored, rv);
    return { object: this.fromStored(type, stored) };
  }

  forbiddenFor(type: ResourceType, name: string, why: string): never {
    throw forbidden(groupResource(type), name, why);
  }
}
