import type { Identity } from '../../auth/identity.js';
import type { ConnectorHealth, ConnectorInfo, QueryOptions } from '../../connectors/index.js';
import type { GatewayDeps } from '../deps.js';
import { servesOrganization } from './tenancy.js';

/** The connectors that serve the caller's organization (the others are not listed, checked or named). */
export function visibleConnectors(deps: GatewayDeps, identity: Identity): ConnectorInfo[] {
  return deps.connectors.list().filter((c) => {
    const doc = deps.connectors.resource(c.name);
    return doc !== undefined && servesOrganization(doc, identity, deps.source);
  });
}

/** `GET /mcp/health`: the caller's connectors, each checked now, in parallel. */
export async function checkVisible(deps: GatewayDeps, identity: Identity) {
  const connectors: ConnectorHealth[] = await Promise.all(visibleConnectors(deps, identity).map((c) => deps.connectors.checkHealth(c.name)));
  const healthyCount = connectors.filter((c) => c.healthy).length;
  return {
    healthy: healthyCount === connectors.length,
    total_connectors: connectors.length,
    healthy_count: healthyCount,
    unhealthy_count: connectors.length - healthyCount,
    timestamp: deps.now().toISOString(),
    connectors,
  };
}

/**
 * A request's `options` as the connector runtime takes them: camelCase or snake_case, numbers and booleans only
 * (anything else is ignored: options can only tighten the connector's limits).
 */
export function callOptions(options: Record<string, unknown> | undefined): QueryOptions {
  if (!options) return {};
  const num = (...keys: string[]) => {
    for (const k of keys) if (typeof options[k] === 'number') return options[k];
    return undefined;
  };
  const out: QueryOptions = {};
  const timeoutMs = num('timeoutMs', 'timeout_ms');
  const maxRows = num('maxRows', 'max_rows', 'limit');
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  if (maxRows !== undefined) out.maxRows = maxRows;
  if (options.redact === true) out.redact = true;
  return out;
}
