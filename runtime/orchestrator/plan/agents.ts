/**
 * The planners' catalogue: the AgentConfigs of the declarative source, and the domain of a request (the body's
 * `domain`, else `context.domain`, else inferred from the query's words, else `generic`).
 */
import { durationToMs, type AgentConfigResource } from '../../../api/index.js';
import { DEFAULT_NAMESPACE, type DeclarativeSource } from '../../source/index.js';
import { DEFAULT_STEP_TIMEOUT_MS, type PlanAgent } from './types.js';

export function planAgent(config: AgentConfigResource): PlanAgent {
  const ns = config.metadata.namespace ?? DEFAULT_NAMESPACE;
  const spec = config.spec;
  return {
    name: ns === DEFAULT_NAMESPACE ? config.metadata.name : `${ns}/${config.metadata.name}`,
    ref: `${ns}/${config.metadata.name}`,
    domain: spec.domain,
    type: spec.type,
    description: spec.description,
    capabilities: [...spec.capabilities],
    ...(spec.llm
      ? {
          llm: {
            provider: spec.llm.provider,
            model: spec.llm.model,
            ...(spec.llm.fallback !== undefined ? { fallback: spec.llm.fallback } : {}),
          },
        }
      : {}),
    timeoutMs: spec.timeout ? durationToMs(spec.timeout) : DEFAULT_STEP_TIMEOUT_MS,
  };
}

/** Every AgentConfig of the source, by the name plan steps use. */
export function catalogue(source: DeclarativeSource): Map<string, PlanAgent> {
  const out = new Map<string, PlanAgent>();
  for (const config of source.list('AgentConfig')) {
    const agent = planAgent(config);
    out.set(agent.name, agent);
  }
  return out;
}

/** Words that point at a domain when the request names none. Agents' capabilities add theirs. */
const DOMAIN_WORDS: Record<string, readonly string[]> = {
  travel: [
    'travel',
    'trip',
    'flight',
    'flights',
    'hotel',
    'hotels',
    'vacation',
    'holiday',
    'itinerary',
    'airport',
    'booking',
    'destination',
    'visit',
  ],
  healthcare: [
    'health',
    'patient',
    'patients',
    'doctor',
    'symptom',
    'symptoms',
    'diagnosis',
    'medication',
    'medical',
    'treatment',
    'clinic',
    'disease',
  ],
  finance: [
    'finance',
    'financial',
    'stock',
    'stocks',
    'invest',
    'investment',
    'portfolio',
    'loan',
    'tax',
    'budget',
    'bank',
    'market',
    'currency',
  ],
};

/** Lower-case words of a text, a trailing plural `s` dropped. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    out.add(w);
    if (w.length > 3 && w.endsWith('s')) out.add(w.slice(0, -1));
  }
  return out;
}

/**
 * The request's domain: `domain`, else `context.domain`, else the domain whose words (and agents' capability
 * words) the query uses most, else `generic`. Ties go to the domain listed first.
 */
export function pickDomain(
  request: { query: string; domain?: string; context?: Record<string, unknown> },
  agents: Iterable<PlanAgent>,
): { domain: string; inferred: boolean } {
  if (request.domain) return { domain: request.domain.toLowerCase(), inferred: false };
  const hinted = request.context?.domain;
  if (typeof hinted === 'string' && hinted !== '') return { domain: hinted.toLowerCase(), inferred: false };
  const query = words(request.query);
  const vocab = new Map<string, Set<string>>(Object.entries(DOMAIN_WORDS).map(([d, ws]) => [d, new Set(ws)]));
  for (const a of agents) {
    if (a.domain === 'generic') continue;
    const set = vocab.get(a.domain) ?? new Set<string>();
    for (const c of a.capabilities) for (const w of words(c)) if (w.length > 3) set.add(w);
    vocab.set(a.domain, set);
  }
  let best = 'generic';
  let bestScore = 0;
  for (const [domain, set] of vocab) {
    let score = 0;
    for (const w of query) if (set.has(w)) score++;
    if (score > bestScore) {
      best = domain;
      bestScore = score;
    }
  }
  return { domain: best, inferred: true };
}
