import type { z } from 'zod';
import type { labelSelector } from '../../../api/index.js';

export type LabelSelector = z.infer<typeof labelSelector>;

/**
 * Kubernetes label-selector semantics: every matchLabels pair and every matchExpressions requirement must
 * hold. An absent or empty selector matches everything (`agentPool.selector` absent: all AgentConfigs).
 */
export function matchesSelector(
  labels: Readonly<Record<string, string>> | undefined,
  selector: LabelSelector | undefined,
): boolean {
  if (!selector) return true;
  const own = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (own[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(own, key);
    switch (operator) {
      case 'In':
        if (!has || !values.includes(own[key]!)) return false;
        break;
      case 'NotIn':
        // NB: as in Kubernetes, NotIn matches objects that lack the label.
        if (has && values.includes(own[key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}
