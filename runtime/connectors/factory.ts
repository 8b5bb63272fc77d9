import type { ConnectorResource } from '../../api/resources.js';
import { ConnectorError } from './errors.js';
import { connectorOptions, type ConnectorOptions } from './options.js';
import type { Connector } from './types.js';
import type { ToolGate } from './pins/pins.js';

export function parseOptions(doc: ConnectorResource): ConnectorOptions {
  const parsed = connectorOptions.safeParse(doc.spec.options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConnectorError(
      'CONNECTOR_MISCONFIGURED',
      `spec.options.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      { connector: doc.metadata.name },
    );
  }
  return parsed.data;
}

/**
 * A connector of the document's kind; nothing is opened until `connect()` (pglite: until its first query). `gate`
 * holds an `mcp` connector's tool listings (an `a2a` connector's card) against their pins. NB: each kind's module (and its driver: pg, mysql2,
 * ioredis, the MCP SDK, the SQL parser) is loaded with the first connector of that kind, so that a gateway pays in
 * memory only for the kinds it has.
 */
export async function createConnector(doc: ConnectorResource, url: string, gate?: ToolGate): Promise<Connector> {
  const name = doc.metadata.name;
  const options = parseOptions(doc);
  switch (doc.spec.type) {
    case 'postgres':
      return new (await import('./kinds/postgres.js')).PostgresConnector(name, url, options);
    case 'mysql':
      return new (await import('./kinds/mysql.js')).MysqlConnector(name, url, options);
    case 'redis':
      return new (await import('./kinds/redis.js')).RedisConnector(name, url, options);
    case 'http':
      return new (await import('./kinds/http.js')).HttpConnector(name, url, options);
    case 'mcp':
      return new (await import('./kinds/mcp.js')).McpConnector(name, url, options, gate);
    case 'a2a':
      return new (await import('./kinds/a2a.js')).A2aConnector(name, url, options, gate);
    case 'pglite':
      return new (await import('./kinds/pglite.js')).PgliteConnector(name, doc.spec.seed, options);
  }
}
