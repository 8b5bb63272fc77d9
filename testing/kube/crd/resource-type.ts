/**
 * Turns a CustomResourceDefinition into the ResourceTypes it serves: one per served version, sharing
 * storage (conversion strategy None: only apiVersion changes between versions).
 */
import type { PrinterColumn, ResourceType } from '../registry.js';
import { sortVersions } from '../registry.js';
import { ALL_VERBS, arr, obj } from '../kinds/define.js';
import type { JSONSchemaProps, JsonObject } from '../schema/types.js';
import { CREATION_TIMESTAMP_DESCRIPTION } from '../table.js';
import { evalJsonPath } from '../jsonpath.js';

export interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export function crdNames(crd: JsonObject): CrdNames {
  const n = obj(obj(crd.spec).names);
  const kind = String(n.kind ?? '');
  return {
    plural: String(n.plural ?? ''),
    singular: String(n.singular || kind.toLowerCase()),
    kind,
    listKind: String(n.listKind || `${kind}List`),
    shortNames: arr(n.shortNames).map(String),
    categories: arr(n.categories).map(String),
  };
}

function columns(version: JsonObject): PrinterColumn[] {
  const cols = arr(version.additionalPrinterColumns).map(obj);
  if (cols.length === 0) {
    return [
      {
        name: 'Age',
        type: 'date',
        description: CREATION_TIMESTAMP_DESCRIPTION,
        jsonPath: '.metadata.creationTimestamp',
      },
    ];
  }
  return cols.map((c) => ({
    name: String(c.name),
    type: String(c.type) as PrinterColumn['type'],
    format: typeof c.format === 'string' ? c.format : '',
    description: typeof c.description === 'string' ? c.description : '',
    priority: typeof c.priority === 'number' ? c.priority : 0,
    jsonPath: String(c.jsonPath),
  }));
}

function selectableFields(version: JsonObject): ResourceType['fieldSelectors'] {
  const out: ResourceType['fieldSelectors'] = {};
  for (const f of arr(version.selectableFields).map(obj)) {
    const path = String(f.jsonPath ?? '');
    if (!path) continue;
    out[path.replace(/^\./, '')] = (o) => {
      const v = evalJsonPath(o, path)[0];
      return v === undefined || v === null ? undefined : String(v);
    };
  }
  return out;
}

export function crdResourceTypes(crd: JsonObject): ResourceType[] {
  const spec = obj(crd.spec);
  const group = String(spec.group ?? '');
  const names = crdNames(crd);
  const versions = arr(spec.versions).map(obj);
  const served = versions.filter((v) => v.served === true);
  const storage = versions.find((v) => v.storage === true) ?? versions[0];
  const preferred = sortVersions(served.map((v) => String(v.name)))[0] ?? '';
  const crdName = String(obj(crd.metadata).name ?? '');
  return served.map((v) => {
    const version = String(v.name);
    const apiVersion = `${group}/${version}`;
    const subs = obj(v.subresources);
    const hasStatus = subs.status !== undefined;
    const scale = subs.scale ? obj(subs.scale) : undefined;
    const t: ResourceType = {
      group,
      version,
      resource: names.plural,
      singular: names.singular,
      kind: names.kind,
      listKind: names.listKind,
      namespaced: spec.scope !== 'Cluster',
      shortNames: names.shortNames,
      categories: names.categories,
      verbs: ALL_VERBS,
      subresources: {
        status: hasStatus,
        scale: scale
          ? {
              specReplicasPath: String(scale.specReplicasPath),
              statusReplicasPath: String(scale.statusReplicasPath),
              labelSelectorPath: scale.labelSelectorPath ? String(scale.labelSelectorPath) : undefined,
            }
          : undefined,
      },
      builtin: false,
      storageKey: `${names.plural}.${group}`,
      storageApiVersion: `${group}/${String(storage?.name ?? version)}`,
      schema: obj(obj(v.schema).openAPIV3Schema) as JSONSchemaProps,
      printerColumns: columns(v),
      generation: hasStatus ? 'all-but-metadata-status' : 'all-but-metadata',
      strategy: {
        prepareForCreate(o) {
          if (hasStatus) delete o.status;
        },
        prepareForUpdate(n, old) {
          if (!hasStatus) return;
          if (old.status === undefined) delete n.status;
          else n.status = old.status;
        },
      },
      returnDeletedObject: true,
      allowUnconditionalUpdate: false,
      allowCreateOnUpdate: false,
      fieldSelectors: selectableFields(v),
      convert: {
        toStorage: (o) => ({ ...o, apiVersion: `${group}/${String(storage?.name ?? version)}` }),
        fromStorage: (o) => ({ ...o, apiVersion }),
      },
      preferredVersion: preferred,
      crdName,
    };
    return t;
  });
}
