import type { Identity } from '../../auth/identity.js';
import type { ConnectorInfo, QueryOptions } from '../../connectors/index.js';
import type { ConnectorRouteOptions } from '../deps.js';
import { servesOrganization } from './tenancy.js';

/** The connectors that serve the caller's organization (the others are not listed, checked or named). */
export function visibleConnectors(deps: ConnectorRouteOptions, identity: Identity): ConnectorInfo[] {
  return deps.connectors.list().filter((c) => {
    const doc = deps.connectors.resource(c.name);
    return doc !== undefined && servesOrganization(doc, identity, deps.source);
  });
}

/** `GET /mcp/health`: the caller's connectors, each checked now, in parallel. */
export function checkVisible(deps: ConnectorRouteOptions, identity: Identity) {
  return deps.connectors.checkAll(visibleConnectors(deps, identity).map((c) => c.name));
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
