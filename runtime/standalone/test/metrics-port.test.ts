import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition } from '../../../testing/prometheus-text.js';
import { standaloneSettings } from '../../../cmd/config/settings.js';
import { createLogger } from '../../../platform/log.js';
import { startStandalone, type Standalone } from '../main.js';

/**
 * Standalone over real sockets: one process registry behind three listeners (gateway, orchestrator, and the
 * metrics port from STEWARD_METRICS_PORT), and the API reference on both API ports.
 */
let app: Standalone;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'steward-metrics-port-'));
  const config = standaloneSettings({
    STEWARD_GATEWAY_PORT: '0',
    STEWARD_ORCHESTRATOR_PORT: '0',
    STEWARD_METRICS_PORT: '0',
    STEWARD_DATA_DIR: dataDir,
    STEWARD_MANIFESTS: 'config/samples',
    STEWARD_WATCH_MANIFESTS: 'false',
  });
  app = await startStandalone(config, createLogger({ level: 'silent' }));
});
afterAll(async () => {
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const url = (which: 'gateway' | 'orchestrator' | 'metrics', path: string) => {
  const { port } = app[which]!.server.address() as { port: number };
  return `http://127.0.0.1:${port}${path}`;
};

describe('standalone metrics and API reference', () => {
  it('serves one registry on the metrics port, counting requests of both API ports by server', async () => {
    await fetch(url('gateway', '/health'));
    await fetch(url('orchestrator', '/health'));
    const res = await fetch(url('metrics', '/metrics/prometheus'));
    expect(res.status).toBe(200);
    const m = parseExposition(await res.text());
    for (const server of ['gateway', 'orchestrator']) {
      expect(
        m.find('steward_http_requests_total', { server, route: '/health', method: 'GET', status_class: '2xx' })[0]
          ?.value,
        server,
      ).toBeGreaterThanOrEqual(1);
    }
    expect(m.find('steward_build_info')).toHaveLength(1);
  });

  it('serves the scrape on both API ports too (community mode: no credentials)', async () => {
    for (const which of ['gateway', 'orchestrator'] as const) {
      const res = await fetch(url(which, '/metrics/prometheus'));
      expect(res.status, which).toBe(200);
      expect(parseExposition(await res.text()).families.get('steward_http_requests_total')?.type).toBe('counter');
    }
  });

  it('answers nothing but the scrape on the metrics port', async () => {
    expect((await fetch(url('metrics', '/health'))).status).toBe(404);
  });

  it('serves /openapi.json and /docs on both API ports', async () => {
    for (const which of ['gateway', 'orchestrator'] as const) {
      const doc = (await (await fetch(url(which, '/openapi.json'))).json()) as {
        openapi: string;
        paths: Record<string, unknown>;
      };
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toContain('/metrics/prometheus');
      const page = await fetch(url(which, '/docs/'));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('swagger-ui');
    }
  });
});
