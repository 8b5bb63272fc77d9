import { z } from 'zod';
import { GROUP, VERSION, LABELS } from '../constants.js';
import type { KindDefinition } from '../kind.js';
import { toStructural } from './structural.js';

/** Builds the apiextensions.k8s.io/v1 CustomResourceDefinition of one kind. Pure; no I/O. */
export function buildCrd(def: KindDefinition): Record<string, unknown> {
  const spec = toStructural(z.toJSONSchema(def.spec, { target: 'openapi-3.0', io: 'input' }));
  const status = toStructural(z.toJSONSchema(def.status, { target: 'openapi-3.0', io: 'input' }));
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
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec,
                status,
              },
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
