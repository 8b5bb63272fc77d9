import { z } from 'zod';

/** A Kubernetes-style name (RFC 1123 subdomain). */
export const resourceName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a lowercase RFC 1123 name (a-z, 0-9, "-", ".")');

/** A key of a Secret in the same namespace. */
export const secretKeyRef = z
  .object({
    name: resourceName.describe('Secret name, same namespace'),
    key: z.string().min(1).describe('key inside the Secret'),
  })
  .strict();
export type SecretKeyRef = z.infer<typeof secretKeyRef>;

/** Go-style duration as Kubernetes writes them: 500ms, 30s, 5m, 1h. */
export const duration = z.string().regex(/^([0-9]+(ms|s|m|h))+$/, 'must be a duration such as 500ms, 30s, 5m or 1h');

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration accepted by {@link duration} into milliseconds. */
export function durationToMs(text: string): number {
  let total = 0;
  for (const m of text.matchAll(/([0-9]+)(ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}

export const labelSelector = z
  .object({
    matchLabels: z
      .record(z.string(), z.string())
      .optional()
      .describe('labels an object must carry, all of them, with these values'),
    matchExpressions: z
      .array(
        z
          .object({
            key: z.string().describe('label key the requirement applies to'),
            operator: z
              .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
              .describe("how the label's value relates to values"),
            values: z
              .array(z.string())
              .optional()
              .describe('label values; non-empty for In and NotIn, empty for Exists and DoesNotExist'),
          })
          .strict(),
      )
      .optional()
      .describe('label requirements, all of which must hold'),
  })
  .strict();

/** Object metadata as Steward reads it from manifests; unknown metadata fields are kept by Kubernetes, not by us. */
export const objectMeta = z
  .object({
    name: resourceName,
    namespace: resourceName.optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    generation: z.number().int().optional(),
    resourceVersion: z.string().optional(),
    uid: z.string().optional(),
    creationTimestamp: z.string().optional(),
  })
  .passthrough();
export type ObjectMeta = z.infer<typeof objectMeta>;
