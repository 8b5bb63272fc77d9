/**
 * A test gateway with Connectors to the machine's PostgreSQL, MariaDB and Redis, a local HTTP API and a real MCP
 * server, plus two policies that read `input.mcp`. Each run uses its own schema, tables and key prefix.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import {
  MYSQL_URL,
  PG_URL,
  REDIS_URL,
  apiHandler,
  listen,
  mcpHandler,
  runId,
  type Running,
} from '../../connectors/test/fixtures.js';

export { eventually, listen, mcpHandler } from '../../connectors/test/fixtures.js';

export interface ConnectorWorld {
  gw: TestGateway;
  id: string;
  api: Running;
  mcp: Running;
  /** Rows of `${id}.orders` in PostgreSQL (and `${id}_orders` in MariaDB). */
  pgClient: pg.Client;
  close(): Promise<void>;
}

export const connectorYaml = (name: string, spec: Record<string, unknown>, namespace?: string) =>
  `${stringify({ apiVersion: 'steward.dev/v1alpha1', kind: 'Connector', metadata: { name, ...(namespace ? { namespace } : {}) }, spec })}---\n`;

/** Blocks reads of any `customers` table and inserts through `pg-rw`; both read what the SQL guard parsed. */
const policiesYaml = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: no-customer-reads}
spec:
  type: custom
  priority: 4000
  rego: |
    package custom.no_customer_reads
    deny contains "customer data is not for agents" if {
      some t in input.mcp.sql.tables
      endswith(t, ".customers")
    }
---
apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: no-inserts}
spec:
  type: custom
  priority: 4000
  rego: |
    package custom.no_inserts
    deny contains "inserts are reviewed by a human" if {
      input.mcp.connector == "pg-rw"
      input.mcp.sql.operation == "insert"
    }
---
`;

/** `extraManifests` may depend on the run's schema id; `env` adds to the gateway's environment (LLM stand-ins). */
export async function startConnectorWorld(
  options: {
    extraManifests?: string | ((id: string) => string);
    mcpHealthIntervalSeconds?: number;
    env?: Record<string, string>;
  } = {},
): Promise<ConnectorWorld> {
  const id = runId();
  const api = await listen(apiHandler);
  const mcp = await listen(mcpHandler());
  const pgClient = new pg.Client({ connectionString: PG_URL });
  await pgClient.connect();
  await pgClient.query(`CREATE SCHEMA ${id}`);
  await pgClient.query(`CREATE TABLE ${id}.orders (id int PRIMARY KEY, customer text, total numeric)`);
  await pgClient.query(`INSERT INTO ${id}.orders VALUES (1, 'ada', 10.5), (2, 'alan', 20), (3, 'grace', 31)`);
  await pgClient.query(`CREATE TABLE ${id}.customers (id int, email text)`);
  const my = await mysql.createConnection(MYSQL_URL);
  await my.query(`CREATE TABLE ${id}_orders (id int PRIMARY KEY, customer varchar(32))`);
  await my.query(`INSERT INTO ${id}_orders VALUES (1, 'ada'), (2, 'alan')`);
  await my.end();
  const redis = new Redis(REDIS_URL);
  await redis.set(`${id}:greeting`, 'hello');
  redis.disconnect();

  const local = { allowedCidrs: ['127.0.0.0/8'] };
  const manifests =
    connectorYaml('pg', {
      type: 'postgres',
      connection: { fromEnv: 'PG_URL' },
      allowedOperations: ['query'],
      options: { defaultSchema: id },
    }) +
    connectorYaml('pg-rw', {
      type: 'postgres',
      connection: { fromEnv: 'PG_URL' },
      allowedOperations: ['query'],
      options: { readOnly: false, defaultSchema: id },
    }) +
    connectorYaml('pg-acme', {
      type: 'postgres',
      connection: { fromEnv: 'PG_URL' },
      allowedOperations: ['query'],
      organizations: ['acme'],
    }) +
    connectorYaml(
      'pg-elsewhere',
      { type: 'postgres', connection: { fromEnv: 'PG_URL' }, allowedOperations: ['query'] },
      'elsewhere',
    ) +
    connectorYaml('maria', { type: 'mysql', connection: { fromEnv: 'MYSQL_URL' }, allowedOperations: ['query'] }) +
    connectorYaml('cache', {
      type: 'redis',
      connection: { fromEnv: 'CACHE_URL' },
      allowedOperations: ['get'],
      options: { keyPrefix: `${id}:` },
    }) +
    connectorYaml('api', {
      type: 'http',
      connection: { fromEnv: 'API_URL' },
      allowedOperations: ['query', 'request'],
      options: local,
    }) +
    connectorYaml('tools', {
      type: 'mcp',
      connection: { fromEnv: 'MCP_URL' },
      allowedOperations: ['add', 'whois'],
      options: local,
      healthCheck: { intervalSeconds: options.mcpHealthIntervalSeconds ?? 30, timeoutMs: 1000 },
    }) +
    policiesYaml +
    (typeof options.extraManifests === 'function' ? options.extraManifests(id) : (options.extraManifests ?? ''));
  const gw = await startTestGateway({
    manifests,
    env: {
      PG_URL,
      MYSQL_URL,
      // NB: not REDIS_URL, which would move the gateway's rate limiter to Redis.
      CACHE_URL: REDIS_URL,
      API_URL: api.url,
      MCP_URL: `${mcp.url}/mcp`,
      STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
      STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
      ...options.env,
    },
  });
  return {
    gw,
    id,
    api,
    mcp,
    pgClient,
    async close() {
      await gw.close();
      await api.stop();
      await mcp.stop();
      await pgClient.query(`DROP SCHEMA ${id} CASCADE`);
      await pgClient.end();
      const m = await mysql.createConnection(MYSQL_URL);
      await m.query(`DROP TABLE IF EXISTS ${id}_orders`);
      await m.end();
    },
  };
}
