import { z } from 'zod';
import { API_VERSION, GROUP, VERSION, LABELS } from '../constants.js';
import type { KindDefinition } from '../kind.js';
import { toStructural, undescribedFields } from './structural.js';

/** Kubernetes' own words for the fields every object has (what `kubectl explain` shows for built-in kinds). */
const OBJECT_FIELDS = {
  apiVersion: {
    type: 'string',
    description: `APIVersion defines the versioned schema of this representation of an object: ${API_VERSION}.`,
  },
  kind: {
    type: 'string',
    description: 'Kind is a string value representing the REST resource this object represents.',
  },
  metadata: {
    type: 'object',
    description:
      "Standard object's metadata: name, namespace, labels, annotations. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  },
};

/** Thrown when a field of a kind has no `.describe()`: `kubectl explain` would show nothing for it. */
export class UndescribedFieldsError extends Error {
  override name = 'UndescribedFieldsError';
  constructor(
    readonly kind: string,
    readonly fields: readonly string[],
  ) {
    super(`${kind}: every field needs a .describe() in api/ (kubectl explain shows it); missing: ${fields.join(', ')}`);
  }
}

/** Builds the apiextensions.k8s.io/v1 CustomResourceDefinition of one kind. Pure; no I/O. */
export function buildCrd(def: KindDefinition): Record<string, unknown> {
  const spec = toStructural(z.toJSONSchema(def.spec, { target: 'openapi-3.0', io: 'input' }));
  const status = toStructural(z.toJSONSchema(def.status, { target: 'openapi-3.0', io: 'input' }));
  const properties = { ...OBJECT_FIELDS, spec, status };
  const missing = undescribedFields({ properties }, def.kind);
  if (missing.length) throw new UndescribedFieldsError(def.kind, missing);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${def.plural}.${GROUP}`,
      labels: { [LABELS.partOf]: 'steward' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: ['steward'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: def.description,
              properties,
              required: ['spec'],
            },
          },
          subresources: { status: {} },
          additionalPrinterColumns: def.printerColumns.map((c) => ({
            name: c.name,
            type: c.type,
            jsonPath: c.jsonPath,
            ...(c.description ? { description: c.description } : {}),
            ...(c.priority ? { priority: c.priority } : {}),
          })),
        },
      ],
    },
  };
}
