import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderSource } from '../../source/index.js';
import { ConnectorRegistry } from '../registry.js';
import type { ConnectorStatus } from '../status.js';
import { envResolver } from '../resolve.js';
import {
  PG_URL,
  apiHandler,
  connectorDoc,
  connectorYaml,
  eventually,
  listen,
  mcpHandler,
  type Running,
} from './fixtures.js';

let dir: string;
let source: FolderSource;
let registry: ConnectorRegistry;
let api: Running;
let mcp: Running;
const reports: [string, ConnectorStatus][] = [];

const httpDoc = (extra = {}) =>
  connectorDoc('api', 'http', 'API_URL', {
    options: { allowedCidrs: ['127.0.0.0/8'] },
    healthCheck: { intervalSeconds: 5, timeoutMs: 1000 },
    allowedOperations: ['query'],
    ...extra,
  });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-connectors-'));
  api = await listen(apiHandler);
  mcp = await listen(mcpHandler());
  await writeFile(join(dir, 'api.yaml'), connectorYaml(httpDoc()));
  await writeFile(
    join(dir, 'db.yaml'),
    connectorYaml(connectorDoc('db', 'postgres', 'DB_URL', { allowedOperations: ['query'] })),
  );
  await writeFile(
    join(dir, 'tools.yaml'),
    connectorYaml(
      connectorDoc('tools', 'mcp', 'MCP_URL', {
        options: { allowedCidrs: ['127.0.0.1/32'] },
        allowedOperations: ['add'],
      }),
    ),
  );
  source = new FolderSource({ dirs: [dir], debounceMs: 20 });
  reports.length = 0;
  registry = new ConnectorRegistry({
    source,
    resolveUrl: envResolver({ API_URL: api.url, DB_URL: PG_URL, MCP_URL: `${mcp.url}/mcp` }),
    reporter: { report: (name, status) => void reports.push([name, status]) },
  });
  await registry.start();
});

afterEach(async () => {
  await registry.close();
  await source.close();
  await api.stop();
  await mcp.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('ConnectorRegistry', () => {
  it('loads connectors from the source and checks their health', async () => {
    expect(registry.list().map((c) => [c.name, c.type])).toEqual([
      ['api', 'http'],
      ['db', 'postgres'],
      ['tools', 'mcp'],
    ]);
    await eventually(() => expect(registry.list().every((c) => c.status === 'healthy')).toBe(true));
    const h = await registry.checkHealth('db');
    expect(h).toMatchObject({ name: 'db', type: 'postgres', healthy: true, status: 'healthy' });
    expect(reports.some(([n, s]) => n === 'db' && s.status === 'healthy' && s.lastHealthCheck)).toBe(true);
    const all = await registry.checkAll();
    expect(all).toMatchObject({ healthy: true, total_connectors: 3, healthy_count: 3, unhealthy_count: 0 });
  });

  it('runs queries and allowed tools, refuses operations outside allowedOperations and unknown connectors', async () => {
    const q = registry.prepareQuery('db', 'SELECT CAST($1 AS int) + 1 AS n', [41]);
    expect(q.sql).toEqual({ operation: 'select', tables: [], limit: null });
    expect(q.mcp).toEqual({
      connector: 'db',
      type: 'postgres',
      operation: 'query',
      statement: 'SELECT CAST($1 AS int) + 1 AS n',
      params: [41],
      sql: q.sql,
    });
    expect(q.statementHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await q.run()).rows).toEqual([{ n: 42 }]);
    expect((await registry.execute('tools', 'add', { a: 1, b: 2 })).result).toMatchObject({ content: [{ text: '3' }] });
    expect(registry.tools('tools').map((t) => t.tool.name)).toEqual(['add']);
    await expect(registry.execute('tools', 'whois', { name: 'x' })).rejects.toMatchObject({
      code: 'OPERATION_NOT_ALLOWED',
    });
    await expect(registry.query('nope', 'SELECT 1')).rejects.toMatchObject({ code: 'CONNECTOR_NOT_FOUND' });
  });

  it('guards the SQL query tool before policy, like a query', async () => {
    await writeFile(
      join(dir, 'db.yaml'),
      connectorYaml(connectorDoc('db', 'postgres', 'DB_URL', { allowedOperations: ['query'] })),
    );
    expect(() => registry.prepareTool('db', 'query', { statement: 'SELECT pg_sleep(1)' })).toThrow(
      expect.objectContaining({ code: 'SQL_REFUSED' }),
    );
    const call = registry.prepareTool('db', 'query', { statement: 'SELECT 2 AS two' });
    expect(call.sql).toEqual({ operation: 'select', tables: [], limit: null });
    expect((await call.run()).result).toMatchObject({ rows: [{ two: 2 }] });
  });

  it('turns unhealthy within one interval when the server stops, and healthy again when it is back', async () => {
    await eventually(() => expect(registry.status('api').status).toBe('healthy'));
    const port = api.port;
    await api.stop();
    // one interval (5 s) plus the check's own timeout, as a deadline
    await eventually(() => expect(registry.status('api').status).toBe('unhealthy'), 5000 + 1000 + 2000);
    api = await listen(apiHandler, port);
    await eventually(() => expect(registry.status('api').status).toBe('healthy'), 5000 + 1000 + 2000);
  });

  it('follows the source: a modified document replaces the connector, a deleted one is closed', async () => {
    await expect(registry.execute('api', 'request', { path: '/users' })).rejects.toMatchObject({
      code: 'OPERATION_NOT_ALLOWED',
    });
    await writeFile(join(dir, 'api.yaml'), connectorYaml(httpDoc({ allowedOperations: ['query', 'request'] })));
    await eventually(async () =>
      expect((await registry.execute('api', 'request', { path: '/users' })).result).toMatchObject({ status: 200 }),
    );
    await unlink(join(dir, 'db.yaml'));
    await eventually(() => expect(registry.list().map((c) => c.name)).toEqual(['api', 'tools']));
    await expect(registry.query('db', 'SELECT 1')).rejects.toMatchObject({ code: 'CONNECTOR_NOT_FOUND' });
  });

  it('refresh() replaces a connector whose connection URL changed (a rotated secret)', async () => {
    const env: Record<string, string> = { API_URL: api.url };
    const other = await listen(apiHandler);
    const r = new ConnectorRegistry({ source, resolveUrl: envResolver(env) });
    try {
      await r.start();
      await r.query('api', '/users');
      env.API_URL = other.url;
      await r.refresh();
      await other.stop();
      // the connector now points at the stopped server
      await expect(r.query('api', '/users')).rejects.toMatchObject({ code: 'CONNECTOR_UNAVAILABLE' });
    } finally {
      await r.close();
    }
  });

  it('refresh() reloads from the source and answers the count', async () => {
    await writeFile(join(dir, 'more.yaml'), connectorYaml(connectorDoc('db2', 'postgres', 'DB_URL')));
    await eventually(async () => expect(await registry.refresh()).toBe(4));
  });

  it('keeps a connector whose URL is missing as unhealthy, with a message and no URL', async () => {
    await writeFile(join(dir, 'broken.yaml'), connectorYaml(connectorDoc('broken', 'postgres', 'NOT_SET')));
    await eventually(async () => {
      await registry.refresh();
      expect(registry.list().find((c) => c.name === 'broken')?.status).toBe('unhealthy');
    });
    expect(registry.status('broken').message).toContain('NOT_SET');
    await expect(registry.query('broken', 'SELECT 1')).rejects.toMatchObject({ code: 'CONNECTOR_MISCONFIGURED' });
  });
});
