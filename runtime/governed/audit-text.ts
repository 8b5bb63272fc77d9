import { LLM_OUTPUT_SURFACE } from '../../api/index.js';
import type { Identity } from '../auth/identity.js';
import { detectorsOf, redactText, type Detector, type RedactionCounts } from '../redact/index.js';
import type { GovernedDeps } from './types.js';

/**
 * Text as audit rows store it: masked with the kinds of the organization's redact policies (and the
 * counts of what was masked), unless `auditRawText` asks for it raw.
 */
export function auditText(
  deps: Pick<GovernedDeps, 'auditRawText' | 'policies'>,
  identity: Identity,
  text: string,
): { text: string; masked?: RedactionCounts } {
  if (deps.auditRawText || text === '') return { text };
  const kinds = deps.policies.redactKinds({
    surface: LLM_OUTPUT_SURFACE,
    organizationId: identity.organizationId,
    tenantId: identity.tenantId,
  });
  if (kinds.length === 0) return { text };
  const counts: RedactionCounts = {};
  const masked = redactText(text, counts, detectorsFor(kinds));
  return Object.keys(counts).length ? { text: masked, masked: counts } : { text };
}

/** Detectors per kinds list: the policy engine hands out one list per organization and tenant until it rebuilds. */
const detectorCache = new WeakMap<readonly string[], Detector[]>();

function detectorsFor(kinds: readonly string[]): Detector[] {
  let detectors = detectorCache.get(kinds);
  if (!detectors) detectorCache.set(kinds, (detectors = detectorsOf(kinds)));
  return detectors;
}
