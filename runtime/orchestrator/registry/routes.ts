/**
 * The agent registry: `GET /api/v1/agents` (filters `domain`, `capability`, `type`; `page`, `page_size`) and
 * `GET /api/v1/agents/{name}`, read from the AgentConfigs of the declarative source. An AgentConfig is not
 * organization-scoped: every caller sees the installation's agents.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AgentConfigResource } from '../../../api/index.js';
import { ApiError, echo } from '../../http/errors.js';
import { FolderSource, type DeclarativeSource } from '../../source/index.js';
import { pageOf, queryText, slice } from '../paging.js';
import { detailView, listView, matches, sourceOf, type AgentTimes } from './view.js';

export interface RegistryRouteDeps {
  source: DeclarativeSource;
  now?: () => Date;
}

const AUTH = { config: { auth: { require: 'any' } as const } };
const TYPES = new Set(['specialist', 'coordinator']);

/**
 * When each agent was first and last seen changed: `metadata.creationTimestamp` when the source has it (a
 * cluster), else the time this process loaded it; updates from the source's change events.
 */
class AgentClock {
  private readonly times = new Map<string, AgentTimes>();
  readonly unsubscribe: () => void;

  constructor(
    source: DeclarativeSource,
    private readonly now: () => Date,
  ) {
    this.unsubscribe = source.subscribe((events) => {
      for (const e of events) {
        if (e.resource.kind !== 'AgentConfig') continue;
        const key = keyOf(e.resource as AgentConfigResource);
        if (e.type === 'deleted') this.times.delete(key);
        else if (e.type === 'modified')
          this.times.set(key, {
            createdAt: this.of(e.resource as AgentConfigResource).createdAt,
            updatedAt: this.now(),
          });
      }
    });
  }

  of(agent: AgentConfigResource): AgentTimes {
    const key = keyOf(agent);
    let t = this.times.get(key);
    if (!t) {
      const created = agent.metadata.creationTimestamp ? new Date(agent.metadata.creationTimestamp) : this.now();
      t = {
        createdAt: Number.isNaN(created.getTime()) ? this.now() : created,
        updatedAt: Number.isNaN(created.getTime()) ? this.now() : created,
      };
      this.times.set(key, t);
    }
    return t;
  }
}

const keyOf = (a: AgentConfigResource) => `${a.metadata.namespace ?? ''}/${a.metadata.name}`;

export const registryRoutes: FastifyPluginAsync<RegistryRouteDeps> = async (app, deps) => {
  const { source } = deps;
  const clock = new AgentClock(source, deps.now ?? (() => new Date()));
  app.addHook('onClose', async () => clock.unsubscribe());
  // NB: the folder source is standalone's; any other source is the Kubernetes API.
  const fromFiles = source instanceof FolderSource;
  const sorted = () => source.list('AgentConfig').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));

  app.get('/api/v1/agents', AUTH, async (req) => {
    const query = req.query as Record<string, unknown>;
    const page = pageOf(query);
    const type = queryText(query, 'type');
    if (type !== undefined && !TYPES.has(type)) {
      throw new ApiError('plan', 'INVALID_REQUEST', 'type must be specialist or coordinator', {
        fields: [{ field: 'type', message: 'specialist or coordinator' }],
      });
    }
    const filter = { domain: queryText(query, 'domain'), capability: queryText(query, 'capability'), type };
    const found = sorted().filter((a) => matches(a, filter));
    return {
      agents: slice(found, page).map((a) => listView(a, sourceOf(a, fromFiles))),
      total: found.length,
      page: page.page,
      page_size: page.pageSize,
    };
  });

  app.get<{ Params: { name: string } }>('/api/v1/agents/:name', AUTH, async (req) => {
    const agent = sorted().find((a) => a.metadata.name === req.params.name);
    if (!agent) throw new ApiError('plan', 'AGENT_NOT_FOUND', `agent ${echo(req.params.name)} not found`);
    return detailView(agent, sourceOf(agent, fromFiles), clock.of(agent));
  });
};
