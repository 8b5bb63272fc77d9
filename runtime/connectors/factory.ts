import type { ConnectorResource } from '../../api/resources.js';
import { ConnectorError } from './errors.js';
import { HttpConnector } from './kinds/http.js';
import { McpConnector } from './kinds/mcp.js';
import { MysqlConnector } from './kinds/mysql.js';
import { PgliteConnector } from './kinds/pglite.js';
import { PostgresConnector } from './kinds/postgres.js';
import { RedisConnector } from './kinds/redis.js';
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
 * holds an `mcp` connector's tool listings against their pins.
 */
export function createConnector(doc: ConnectorResource, url: string, gate?: ToolGate): Connector {
  const name = doc.metadata.name;
  const options = parseOptions(doc);
  switch (doc.spec.type) {
    case 'postgres':
      return new PostgresConnector(name, url, options);
    case 'mysql':
      return new MysqlConnector(name, url, options);
    case 'redis':
      return new RedisConnector(name, url, options);
    case 'http':
      return new HttpConnector(name, url, options);
    case 'mcp':
      return new McpConnector(name, url, options, gate);
    case 'pglite':
      return new PgliteConnector(name, doc.spec.seed, options);
  }
}
