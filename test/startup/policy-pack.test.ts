import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneSettings } from '../../cmd/config/settings.js';
import { createLogger } from '../../platform/log.js';
import { NO_POLICY_WARNING } from '../../runtime/policy/engine.js';
import { builtinPackDir, manifestFolders } from '../../runtime/source/index.js';
import { startStandalone, type Standalone } from '../../runtime/standalone/main.js';
import { repeatedKeys } from '../../testing/log-lines.js';

const AGENT =
  'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: mine}\nspec: {type: specialist, domain: travel, llm: {provider: openai, model: gpt-4o-mini}}\n';
const SSN = { client_id: 'demo', user_token: 'me', query: 'My SSN is 123-45-6789' };

let tmp: string;
let userDir: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-pack-'));
  userDir = join(tmp, 'mine');
  await mkdir(userDir);
  await writeFile(join(userDir, 'agent.yaml'), AGENT);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A standalone on free ports whose log lines are kept. */
async function start(env: Record<string, string>, name: string): Promise<{ app: Standalone; lines: string[] }> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = standaloneSettings({
    STEWARD_GATEWAY_PORT: '0',
    STEWARD_ORCHESTRATOR_PORT: '0',
    STEWARD_DATA_DIR: join(tmp, name),
    STEWARD_WATCH_MANIFESTS: 'false',
    ...env,
  });
  const app = await startStandalone(config, createLogger({ level: 'info' }, sink));
  return { app, lines };
}

const url = (app: Standalone, path: string) =>
  `http://127.0.0.1:${(app.gateway.server.address() as { port: number }).port}${path}`;
const precheck = (app: Standalone) =>
  fetch(url(app, '/api/policy/pre-check'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SSN),
  });

// NB: each case starts a whole standalone (PGlite included): seconds on a busy 2-core host.
describe('the built-in policy pack', { timeout: 90_000 }, () => {
  it("stays loaded when STEWARD_MANIFESTS names a folder of one's own without policies", async () => {
    const { app, lines } = await start({ STEWARD_MANIFESTS: userDir }, 'own');
    try {
      const res = await precheck(app);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ approved: false, policies: ['builtin-pii'] });
      expect(app.source.list('AgentConfig').map((a) => a.metadata.name)).toEqual(['mine']);
      const health = (await (await fetch(url(app, '/health'))).json()) as { status: string };
      expect(health.status).toBe('healthy');
      // the ready line says what to try next
      const ready = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'steward standalone ready');
      expect(ready).toMatchObject({
        policyPack: 'enabled',
        docs: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/docs$/),
        try: expect.stringContaining('/api/policy/pre-check'),
      });
    } finally {
      await app.close();
    }
  });

  it('is loaded once when STEWARD_MANIFESTS still lists config/policies', async () => {
    const { app } = await start({ STEWARD_MANIFESTS: `config/policies,${userDir}` }, 'listed');
    try {
      expect(app.source.issues()).toEqual([]);
      expect(app.source.list('Policy')).toHaveLength(7);
      expect(
        ((await (await fetch(url(app, '/health'))).json()) as { warnings?: string[] }).warnings ?? [],
      ).not.toContainEqual(expect.stringContaining('skipped'));
    } finally {
      await app.close();
    }
  });

  it('when disabled explicitly with no other policy, /health says degraded with the reason and the log warns', async () => {
    const { app, lines } = await start({ STEWARD_MANIFESTS: userDir, STEWARD_BUILTIN_POLICY_PACK: 'disabled' }, 'off');
    try {
      const res = await fetch(url(app, '/health'));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        status: 'degraded',
        warnings: expect.arrayContaining([NO_POLICY_WARNING]),
      });
      expect(await (await precheck(app)).json()).toMatchObject({ approved: true });
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(
        expect.objectContaining({ level: 40, msg: NO_POLICY_WARNING }),
      );
    } finally {
      await app.close();
    }
  });
});

describe('log lines', { timeout: 90_000 }, () => {
  it('repeat no key, from the logger and its children of children', async () => {
    const { app, lines } = await start({ STEWARD_MANIFESTS: userDir }, 'keys');
    await precheck(app);
    await app.close();
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.map((l) => ({ line: l, repeated: repeatedKeys(l) })).filter((l) => l.repeated.length)).toEqual([]);
  });

  it('the scanner finds the repeated key pino writes for child({component}) of child({component})', () => {
    expect(repeatedKeys('{"level":30,"component":"gateway","component":"policies","msg":"x"}')).toEqual(['component']);
    expect(repeatedKeys('{"a":{"b":1,"c":[{"b":2}]},"b":"{\\"a\\":1}"}')).toEqual([]);
  });
});

describe('manifest folders', () => {
  const pack = builtinPackDir();
  it.each([
    { name: "adds the pack after the user's folders", dirs: ['/srv/mine'], enabled: true, want: ['/srv/mine', pack] },
    { name: 'leaves it out when disabled', dirs: ['/srv/mine'], enabled: false, want: ['/srv/mine'] },
    { name: 'adds it once when listed', dirs: [pack, '/srv/mine'], enabled: true, want: [pack, '/srv/mine'] },
    {
      name: 'adds it not at all when a listed folder holds it',
      dirs: [join(pack, '..')],
      enabled: true,
      want: [join(pack, '..')],
    },
    {
      name: 'reads a folder listed twice once',
      dirs: ['/srv/mine', '/srv/mine/'],
      enabled: false,
      want: ['/srv/mine'],
    },
  ])('$name', ({ dirs, enabled, want }) => {
    expect(manifestFolders(dirs, { enabled })).toEqual(want);
  });

  it('finds the pack beside package.json, whatever the working directory', () => {
    expect(pack).toBe(new URL('../../config/policies', import.meta.url).pathname);
  });
});
