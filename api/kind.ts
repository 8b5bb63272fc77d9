import { z } from 'zod';
import { API_VERSION } from './constants.js';
import { objectMeta } from './common.js';

/** A column of `kubectl get` output (CRD additionalPrinterColumns). */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  /** 0 shows in `kubectl get`; higher only with `-o wide`. */
  priority?: number;
}

/** Everything the generator, the validator and the runtimes need to know about one kind. */
export interface KindDefinition<
  Spec extends z.ZodTypeAny = z.ZodTypeAny,
  Status extends z.ZodTypeAny = z.ZodTypeAny,
  K extends string = string,
> {
  kind: K;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: Spec;
  status: Status;
  printerColumns: PrinterColumn[];
}

export function defineKind<Spec extends z.ZodTypeAny, Status extends z.ZodTypeAny, const K extends string>(
  def: KindDefinition<Spec, Status, K>,
): KindDefinition<Spec, Status, K> & { resource: ReturnType<typeof resourceSchema<Spec, Status, K>> } {
  return { ...def, resource: resourceSchema(def) };
}

function resourceSchema<Spec extends z.ZodTypeAny, Status extends z.ZodTypeAny, K extends string>(
  def: KindDefinition<Spec, Status, K>,
) {
  return z
    .object({
      apiVersion: z.literal(API_VERSION),
      kind: z.literal(def.kind),
      metadata: objectMeta,
      spec: def.spec,
      status: def.status.optional(),
    })
    .strict();
}

const READY = '.status.conditions[?(@.type=="Ready")]';

/** Columns every kind shows: the Ready condition's status and reason, Age, and (with -o wide) its message. */
export const commonColumns = {
  ready: { name: 'Ready', type: 'string', jsonPath: `${READY}.status`, description: 'status of the Ready condition' },
  reason: {
    name: 'Reason',
    type: 'string',
    jsonPath: `${READY}.reason`,
    description: 'why the resource is (not) Ready',
  },
  message: {
    name: 'Message',
    type: 'string',
    jsonPath: `${READY}.message`,
    description: 'details of the Ready condition',
    priority: 1,
  },
  age: { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
} satisfies Record<string, PrinterColumn>;
