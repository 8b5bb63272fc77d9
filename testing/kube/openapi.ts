/**
 * OpenAPI v3: the `/openapi/v3` index and one document per group-version, with component schemas
 * carrying `x-kubernetes-group-version-kind` and PATCH operations that list `fieldValidation` — what
 * kubectl reads to decide that the server validates fields (so `--validate=strict` sends
 * `fieldValidation=Strict` instead of validating client-side).
 */
import { createHash } from 'node:crypto';
import type { Registry, ResourceType } from './registry.js';
import { isObject, type JSONSchemaProps, type JsonObject } from './schema/types.js';
import { objectMetaSchema } from './schema/builtin.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

const GROUP_PACKAGE: Record<string, string> = {
  '': 'core',
  apps: 'apps',
  'events.k8s.io': 'events',
  'networking.k8s.io': 'networking',
  policy: 'policy',
  'rbac.authorization.k8s.io': 'rbac',
  'coordination.k8s.io': 'coordination',
  'discovery.k8s.io': 'discovery',
};

/** Component name of a resource's schema (`io.k8s.api.apps.v1.Deployment`, `dev.steward.v1alpha1.Policy`). */
export function definitionName(t: ResourceType): string {
  if (t.group === 'apiextensions.k8s.io')
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${t.version}.${t.kind}`;
  if (t.builtin) return `io.k8s.api.${GROUP_PACKAGE[t.group] ?? t.group}.${t.version}.${t.kind}`;
  return `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
}

function modelComponentName(model: string): string {
  if (model === 'V1ObjectMeta') return `${META}.ObjectMeta`;
  return `io.k8s.steward.models.${model}`;
}

/** Copies a schema into OpenAPI form, turning client-node models into `$ref`s registered in `components`. */
function toOpenApi(s: JSONSchemaProps, components: JsonObject, root = false): JsonObject {
  const model = s['x-steward-model'];
  if (model && !root) {
    const name = modelComponentName(model);
    if (!components[name]) {
      components[name] = {}; // placeholder against cycles
      components[name] = toOpenApi(s, components, true);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-steward-')) continue;
    if (k === 'properties' && isObject(v)) {
      const props: JsonObject = {};
      for (const [pk, pv] of Object.entries(v)) props[pk] = toOpenApi(pv as JSONSchemaProps, components);
      out.properties = props;
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isObject(v)) {
      out[k] = toOpenApi(v as JSONSchemaProps, components);
    } else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) {
      out[k] = v.map((x) => toOpenApi(x as JSONSchemaProps, components));
    } else {
      out[k] = v;
    }
  }
  return out;
}

function gvk(t: ResourceType): JsonObject {
  return { group: t.group, version: t.version, kind: t.kind };
}

function resourceSchema(t: ResourceType, components: JsonObject): JsonObject {
  const base: JsonObject = t.schema
    ? toOpenApi(t.schema, components, true)
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const props = isObject(base.properties) ? { ...base.properties } : {};
  toOpenApi({ ...objectMetaSchema() }, components); // registers ObjectMeta
  props.metadata = {
    allOf: [{ $ref: `#/components/schemas/${META}.ObjectMeta` }],
    description:
      "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  };
  props.apiVersion = {
    type: 'string',
    description: 'APIVersion defines the versioned schema of this representation of an object.',
  };
  props.kind = {
    type: 'string',
    description: 'Kind is a string value representing the REST resource this object represents.',
  };
  return { ...base, type: 'object', properties: props, 'x-kubernetes-group-version-kind': [gvk(t)] };
}

const q = (name: string, description: string, type = 'string'): JsonObject => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true },
});

function patchOperation(t: ResourceType, ref: string, sub: string): JsonObject {
  const content: JsonObject = {
    'application/apply-patch+yaml': { schema: { $ref: `#/components/schemas/${META}.Patch` } },
    'application/json-patch+json': { schema: { $ref: `#/components/schemas/${META}.Patch` } },
    'application/merge-patch+json': { schema: { $ref: `#/components/schemas/${META}.Patch` } },
  };
  // NB: built-in kinds do not advertise strategic merge here: kubectl then computes its client-side apply
  // patch from its compiled-in Go types (exact patch strategies) instead of from this schema.
  return {
    description: `partially update ${sub ? `${sub} of ` : ''}the specified ${t.kind}`,
    operationId: `patch${t.kind}${sub}`,
    parameters: [
      q('dryRun', 'When present, indicates that modifications should not be persisted.'),
      q('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
      q(
        'fieldValidation',
        'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
      ),
      q('force', 'Force is going to "force" Apply requests.', 'boolean'),
    ],
    requestBody: { content, required: true },
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } } },
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': gvk(t),
  };
}

function simpleOperation(t: ResourceType, action: string, ref: string, params: JsonObject[] = []): JsonObject {
  return {
    description: `${action} ${t.kind}`,
    operationId: `${action}${t.kind}`,
    parameters: params,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(t),
  };
}

function paths(t: ResourceType, def: string): JsonObject {
  const prefix = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  const ns = t.namespaced ? '/namespaces/{namespace}' : '';
  const ref = `#/components/schemas/${def}`;
  const writeParams = [
    q('dryRun', 'When present, indicates that modifications should not be persisted.'),
    q('fieldManager', 'fieldManager is a name associated with the actor.'),
    q('fieldValidation', 'fieldValidation instructs the server on how to handle unknown or duplicate fields.'),
  ];
  const out: JsonObject = {};
  const pathParams = [{ name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }];
  if (t.namespaced)
    pathParams.push({ name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } });
  out[`${prefix}${ns}/${t.resource}`] = {
    get: simpleOperation(t, 'list', `#/components/schemas/${def}List`, [
      q('labelSelector', 'A selector to restrict the list of returned objects by their labels.'),
      q('fieldSelector', 'A selector to restrict the list of returned objects by their fields.'),
      q('limit', 'limit', 'integer'),
      q('continue', 'continue'),
      q('watch', 'watch', 'boolean'),
    ]),
    post: simpleOperation(t, 'post', ref, writeParams),
  };
  out[`${prefix}${ns}/${t.resource}/{name}`] = {
    get: simpleOperation(t, 'get', ref),
    put: simpleOperation(t, 'put', ref, writeParams),
    patch: patchOperation(t, ref, ''),
    delete: simpleOperation(t, 'delete', `#/components/schemas/${META}.Status`),
    parameters: pathParams,
  };
  if (t.subresources.status) {
    out[`${prefix}${ns}/${t.resource}/{name}/status`] = {
      get: simpleOperation(t, 'get', ref),
      put: simpleOperation(t, 'put', ref, writeParams),
      patch: patchOperation(t, ref, 'status'),
      parameters: pathParams,
    };
  }
  return out;
}

/** The document for one group-version ('api/v1' or 'apis/<group>/<version>'). */
export function groupVersionDocument(reg: Registry, group: string, version: string): JsonObject | undefined {
  const types = reg.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const components: JsonObject = {
    [`${META}.Patch`]: {
      type: 'object',
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    },
    [`${META}.Status`]: {
      type: 'object',
      description: 'Status is a return value for calls that do not return other objects.',
      'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
    },
    [`${META}.ListMeta`]: {
      type: 'object',
      properties: {
        continue: { type: 'string' },
        remainingItemCount: { type: 'integer', format: 'int64' },
        resourceVersion: { type: 'string' },
      },
    },
  };
  let allPaths: JsonObject = {};
  for (const t of types) {
    const def = definitionName(t);
    components[def] = resourceSchema(t, components);
    components[`${def}List`] = {
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        items: { type: 'array', items: { $ref: `#/components/schemas/${def}` } },
        kind: { type: 'string' },
        metadata: { allOf: [{ $ref: `#/components/schemas/${META}.ListMeta` }] },
      },
      'x-kubernetes-group-version-kind': [{ group: t.group, version: t.version, kind: t.listKind }],
    };
    allPaths = { ...allPaths, ...paths(t, def) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: allPaths,
    components: { schemas: components },
  };
}

/**
 * Builds documents lazily and caches them per registry generation. The index's `hash` changes with the
 * generation, so clients that cache by URL (kubectl does) fetch again after a CRD changes.
 */
export class OpenApiCache {
  private generation = -1;
  private docs = new Map<string, string>();

  constructor(private readonly reg: Registry) {}

  private keys(): string[] {
    const out: string[] = [];
    for (const g of this.reg.groups())
      for (const v of g.versions) out.push(g.name ? `apis/${g.name}/${v}` : `api/${v}`);
    return out;
  }

  private check(): void {
    if (this.generation !== this.reg.generation) {
      this.docs.clear();
      this.generation = this.reg.generation;
    }
  }

  index(): JsonObject {
    this.check();
    const paths: JsonObject = {};
    for (const key of this.keys()) {
      const hash = createHash('sha512').update(`${key}@${this.generation}`).digest('hex').toUpperCase();
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
    return { paths };
  }

  document(key: string): string | undefined {
    this.check();
    const hit = this.docs.get(key);
    if (hit) return hit;
    const m = /^(?:api\/(v[^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(key);
    if (!m) return undefined;
    const doc = m[1] ? groupVersionDocument(this.reg, '', m[1]) : groupVersionDocument(this.reg, m[2]!, m[3]!);
    if (!doc) return undefined;
    const text = JSON.stringify(doc);
    this.docs.set(key, text);
    return text;
  }
}
