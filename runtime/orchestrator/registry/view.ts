import type { AgentConfigResource } from '../../../api/index.js';
import { GROUP } from '../../../api/index.js';
import { isoTimestamp } from '../../../platform/iso-time.js';

/** Where an agent's configuration came from, as the registry reports it. */
export type AgentSource = 'file' | 'kubernetes' | 'api';

/** Set on AgentConfigs written through an API (none of ours yet); the registry reports them as `api`. */
export const SOURCE_ANNOTATION = `${GROUP}/source`;

export interface AgentTimes {
  createdAt: Date;
  updatedAt: Date;
}

export interface AgentFilter {
  domain?: string;
  capability?: string;
  type?: string;
}

export function matches(agent: AgentConfigResource, f: AgentFilter): boolean {
  const s = agent.spec;
  return (
    (f.domain === undefined || s.domain === f.domain) &&
    (f.type === undefined || s.type === f.type) &&
    (f.capability === undefined || s.capabilities.includes(f.capability))
  );
}

export function sourceOf(agent: AgentConfigResource, fromFiles: boolean): AgentSource {
  if (agent.metadata.annotations?.[SOURCE_ANNOTATION] === 'api') return 'api';
  return fromFiles ? 'file' : 'kubernetes';
}

/** The registry's list entry (the reference's registry agent without the detail-only fields). */
export function listView(agent: AgentConfigResource, source: AgentSource) {
  const s = agent.spec;
  return {
    name: agent.metadata.name,
    domain: s.domain,
    type: s.type,
    description: s.description,
    capabilities: s.capabilities,
    source,
  };
}

/** The detail view: the list entry plus `llm`, `metadata {createdAt, updatedAt}` and the per-step timeout. */
export function detailView(agent: AgentConfigResource, source: AgentSource, times: AgentTimes) {
  const s = agent.spec;
  return {
    ...listView(agent, source),
    ...(s.llm ? { llm: { provider: s.llm.provider, model: s.llm.model } } : {}),
    timeout: s.timeout,
    replicas: s.replicas,
    metadata: { createdAt: isoTimestamp(times.createdAt), updatedAt: isoTimestamp(times.updatedAt) },
  };
}
