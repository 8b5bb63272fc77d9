import { endpointProblem } from './endpoints.js';
import { PoolConfigError } from './errors.js';
import type { MemberInit, MemberSource } from './member-source.js';
import { RemoteAgent, type RemoteAgentOptions } from './remote-agent.js';

export type StaticSourceOptions = Omit<RemoteAgentOptions, 'endpoint' | 'id'>;

/**
 * Checks and normalises STEWARD_AGENT_ENDPOINTS entries. A bad entry, a duplicate or an empty list is a
 * PoolConfigError naming the setting: the orchestrator must not start with a pool it cannot reach.
 */
export function parseAgentEndpoints(entries: readonly string[]): string[] {
  if (entries.length === 0)
    throw new PoolConfigError('STEWARD_AGENT_ENDPOINTS lists no endpoint', 'STEWARD_AGENT_ENDPOINTS');
  const seen = new Set<string>();
  for (const entry of entries) {
    const problem = endpointProblem(entry);
    if (problem) throw new PoolConfigError(`STEWARD_AGENT_ENDPOINTS: ${problem}`, 'STEWARD_AGENT_ENDPOINTS');
    const origin = new URL(entry).origin;
    if (seen.has(origin))
      throw new PoolConfigError(`STEWARD_AGENT_ENDPOINTS: ${origin} is listed twice`, 'STEWARD_AGENT_ENDPOINTS');
    seen.add(origin);
  }
  return [...seen];
}

/** A fixed list of remote agents (STEWARD_AGENT_ENDPOINTS). Members never change; health follows probes. */
export class StaticSource implements MemberSource {
  readonly name = 'static';
  private readonly list: MemberInit[];

  constructor(entries: readonly string[], options: StaticSourceOptions = {}) {
    this.list = parseAgentEndpoints(entries).map((endpoint) => ({
      key: endpoint,
      kind: 'remote' as const,
      agent: new RemoteAgent({ ...options, endpoint }),
    }));
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  members(): readonly MemberInit[] {
    return this.list;
  }

  desired(): number {
    return this.list.length;
  }

  subscribe(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}
