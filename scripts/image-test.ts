/**
 * `npm run image:test`: builds the image (scripts/image.ts) and checks it as a pod would run it (docs/image.md):
 * a read-only root filesystem with one writable tmpfs at STEWARD_DATA_DIR (podman's own /tmp, /var/tmp and /run
 * tmpfs turned off, so any other write fails the start), a numeric non-root user, node as PID 1, `GET /health`,
 * a blocked pre-check in community mode, and SIGTERM draining to exit code 0 within the shutdown timeout.
 * Reports the image size and its biggest parts. Not part of `npm test`: a cold build takes minutes.
 *
 * Skipped (exit 0, saying why) only when buildah and podman cannot be installed; STEWARD_IMAGE_TEST_REQUIRED=1 makes
 * that a failure. STEWARD_IMAGE_TEST_NO_BUILD=1 tests the image already built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { IMAGE, STORAGE, buildImage, ensureBase, ensureTools, imageSize, log, run } from './image.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Run by node in the image: imports each bare specifier that a static or dynamic import in dist/ names. */
const IMPORT_ALL = `
import { globSync, readFileSync } from 'node:fs';
const specs = new Set();
for (const file of globSync('dist/**/*.js')) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^\\s*(?:import|export)\\s[^'"]*?from\\s*['"]([^'"]+)['"]/gm)) specs.add(m[1]);
  for (const m of text.matchAll(/\\bimport\\(\\s*['"]([^'"]+)['"]\\s*\\)/g)) specs.add(m[1]);
}
const bare = [...specs].filter((s) => !s.startsWith('.') && !s.startsWith('/') && !s.startsWith('node:'));
for (const s of bare) await import(s);
console.log('imported ' + bare.length + ' specifiers');
`;
const failures: string[] = [];

function check(ok: boolean, what: string): void {
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

function podman(...args: string[]): string {
  return run('podman', [...STORAGE, ...args]);
}

/**
 * runc refuses rlimits above its caller's hard limits (`ulimit -Hn`, `ulimit -Hu`), and here refuses an nproc above
 * kernel.pid_max as well ("error setting rlimit type 6: operation not permitted"); podman's defaults can exceed both.
 */
function ulimits(): string[] {
  const hard = (flag: string) =>
    Number(spawnSync('bash', ['-c', `ulimit -H${flag}`], { encoding: 'utf8' }).stdout.trim()) || Infinity;
  const pidMax = existsSync('/proc/sys/kernel/pid_max')
    ? Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'))
    : Infinity;
  const nofile = Math.min(hard('n'), 1 << 20);
  const nproc = Math.min(hard('u'), pidMax, 1 << 20);
  return ['--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', `nproc=${nproc}:${nproc}`];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, container: string, timeoutMs: number): Promise<Response | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return res;
    } catch {
      // not listening yet
    }
    const state = spawnSync('podman', [...STORAGE, 'inspect', '--format', '{{.State.Running}}', container], {
      encoding: 'utf8',
    }).stdout.trim();
    if (state !== 'true') return undefined;
    await new Promise((r) => setTimeout(r, 500));
  }
  return undefined;
}

/** The image's size and its biggest parts, measured inside it with du. */
function sizeBreakdown(): void {
  const total = imageSize();
  log(`image ${IMAGE}: ${(total / 1e6).toFixed(1)} MB (podman image inspect .Size)`);
  const du = (script: string) =>
    podman(
      'run',
      '--rm',
      '--runtime',
      'runc',
      ...ulimits(),
      '--network',
      'none',
      '--user',
      '0',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      script,
    )
      .trim()
      .split('\n')
      .map((l) => l.split('\t') as [string, string])
      .sort((a, b) => Number(b[0]) - Number(a[0]));
  const show = (rows: [string, string][]) =>
    rows.forEach(([bytes, path]) => log(`  ${(Number(bytes) / 1e6).toFixed(1).padStart(7)} MB  ${path}`));
  show(
    du(
      'du -s -B 1 /app/node_modules /app/dist /app/config /usr/local/bin/node /usr/local/lib/node_modules/npm /usr/lib /usr/share /usr/bin /var /etc',
    ),
  );
  log('  biggest in /app/node_modules:');
  show(du('cd /app/node_modules && du -s -B 1 $(ls -d * @*/* .cache | grep -v "^@[^/]*$")').slice(0, 12));
}

async function main(): Promise<void> {
  const missing = ensureTools();
  if (missing) {
    const message = `image test skipped: buildah/podman cannot be installed here (${missing})`;
    if (process.env.STEWARD_IMAGE_TEST_REQUIRED === '1') throw new Error(message);
    log(message);
    return;
  }
  const started = performance.now();
  if (process.env.STEWARD_IMAGE_TEST_NO_BUILD !== '1') {
    ensureBase();
    buildImage();
  }
  const built = performance.now();

  const config = JSON.parse(podman('image', 'inspect', '--format', '{{json .Config}}', IMAGE)) as {
    User?: string;
    Entrypoint?: string[];
    Labels?: Record<string, string>;
  };
  const uid = Number((config.User ?? '').split(':')[0]);
  check(Number.isInteger(uid) && uid > 0, `image user is numeric and non-root (User=${config.User})`);
  check(
    config.Entrypoint?.[0] === 'node' && config.Entrypoint.includes('dist/cmd/main.js'),
    `entrypoint is node dist/cmd/main.js, exec form (${JSON.stringify(config.Entrypoint)})`,
  );
  for (const label of ['title', 'description', 'licenses', 'version', 'revision', 'created']) {
    check(Boolean(config.Labels?.[`org.opencontainers.image.${label}`]), `label org.opencontainers.image.${label}`);
  }

  const help = podman(
    'run',
    '--rm',
    '--runtime',
    'runc',
    ...ulimits(),
    '--read-only',
    '--read-only-tmpfs=false',
    '--network',
    'none',
    IMAGE,
    '--help',
  );
  for (const cmd of ['gateway', 'orchestrator', 'agent', 'operator', 'standalone', 'license', 'validate']) {
    check(new RegExp(`^\\s+${cmd}\\b`, 'm').test(help), `--help lists ${cmd}`);
  }

  // Every package specifier the compiled code imports, imported in the image: the trimmed node_modules still serves them.
  const imported = podman(
    'run',
    '--rm',
    '--runtime',
    'runc',
    ...ulimits(),
    '--read-only',
    '--read-only-tmpfs=false',
    '--network',
    'none',
    '--entrypoint',
    'node',
    IMAGE,
    '--input-type=module',
    '-e',
    IMPORT_ALL,
  ).trim();
  check(
    /^imported \d+ specifiers$/.test(imported),
    `every package the compiled code imports loads in the image (${imported})`,
  );

  // buildah leaves empty mount points behind in a stage that runs a command under `-v`; the last stage runs none.
  const leftovers = podman(
    'run',
    '--rm',
    '--runtime',
    'runc',
    ...ulimits(),
    '--network',
    'none',
    '--user',
    '0',
    '--entrypoint',
    'sh',
    IMAGE,
    '-c',
    'ls -d /root/.npmrc /run/steward-build 2>/dev/null; true',
  ).trim();
  check(leftovers === '', `no build-time npm configuration or CA mount point in the image (${leftovers || 'none'})`);

  const [gatewayPort, orchestratorPort] = [await freePort(), await freePort()];
  const name = `steward-image-test-${process.pid}`;
  podman(
    'run',
    '-d',
    '--name',
    name,
    '--runtime',
    'runc',
    ...ulimits(),
    '--read-only',
    '--read-only-tmpfs=false',
    '--tmpfs',
    '/var/lib/steward:rw,U', // U: owned by the image's user, as an emptyDir with fsGroup
    '--network',
    'host',
    '-e',
    `STEWARD_GATEWAY_PORT=${gatewayPort}`,
    '-e',
    `STEWARD_ORCHESTRATOR_PORT=${orchestratorPort}`,
    '-e',
    `STEWARD_SHUTDOWN_TIMEOUT_MS=${SHUTDOWN_TIMEOUT_MS}`,
    IMAGE,
    'standalone',
  );
  try {
    const startedAt = performance.now();
    const health = await waitForHealth(`http://127.0.0.1:${gatewayPort}/health`, name, 90_000);
    check(health !== undefined, `GET /health answers 200 (after ${Math.round(performance.now() - startedAt)} ms)`);
    if (!health) {
      process.stdout.write(spawnSync('podman', [...STORAGE, 'logs', name], { encoding: 'utf8' }).stdout);
      return;
    }
    // NB: standalone listens with the gateway first, the orchestrator next: wait for it too.
    const orchestrator = await waitForHealth(`http://127.0.0.1:${orchestratorPort}/health`, name, 10_000);
    check(orchestrator !== undefined, 'orchestrator GET /health answers 200');
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/policy/pre-check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'x', user_token: 'u', query: 'my ssn is 123-45-6789' }),
    });
    const body = (await res.json()) as { approved?: boolean; block_reason?: string };
    check(
      res.status === 200 && body.approved === false,
      `pre-check with a US SSN is blocked (${res.status} ${JSON.stringify(body)})`,
    );

    // The console's page and script come from the image itself (dist/runtime/console/assets).
    const page = await fetch(`http://127.0.0.1:${gatewayPort}/console`);
    const script = await fetch(`http://127.0.0.1:${gatewayPort}/console/assets/console.js`);
    check(
      page.status === 200 && (await page.text()).includes('/console/assets/console.js') && script.status === 200,
      `the console is served (${page.status}, its script ${script.status})`,
    );

    const id = podman('exec', name, 'id', '-u').trim();
    check(id === String(uid), `the process runs as uid ${id}`);
    const pid1 = podman('exec', name, 'cat', '/proc/1/cmdline').split('\0').filter(Boolean);
    check(pid1[0] === 'node', `PID 1 is node (${pid1.join(' ')})`);
    const data = podman('exec', name, 'ls', '/var/lib/steward/pglite').trim();
    check(data.split('\n').includes('PG_VERSION'), 'PGlite data lives in /var/lib/steward/pglite');
    const rootWrite = spawnSync('podman', [...STORAGE, 'exec', name, 'touch', '/app/x'], { encoding: 'utf8' });
    check(rootWrite.status !== 0, 'the root filesystem is read-only');

    const stopAt = performance.now();
    podman('kill', '--signal', 'TERM', name);
    const code = spawnSync('podman', [...STORAGE, 'wait', name], {
      encoding: 'utf8',
      timeout: SHUTDOWN_TIMEOUT_MS + 20_000,
    }).stdout.trim();
    const stopMs = Math.round(performance.now() - stopAt);
    check(code === '0', `SIGTERM: exit code ${code} after ${stopMs} ms`);
    check(stopMs < SHUTDOWN_TIMEOUT_MS, `SIGTERM drains within the shutdown timeout (${SHUTDOWN_TIMEOUT_MS} ms)`);
    const logs = spawnSync('podman', [...STORAGE, 'logs', name], { encoding: 'utf8' });
    check(
      /"signal":"SIGTERM"/.test(logs.stdout + logs.stderr) && /shutdown complete/.test(logs.stdout + logs.stderr),
      'logs show the SIGTERM drain ("shutting down" ... "shutdown complete")',
    );
  } finally {
    spawnSync('podman', [...STORAGE, 'rm', '-f', name], { stdio: 'ignore' });
  }
  sizeBreakdown();
  log(`build ${Math.round((built - started) / 1000)} s, checks ${Math.round((performance.now() - built) / 1000)} s`);
}

try {
  await main();
} catch (err) {
  failures.push(err instanceof Error ? err.message : String(err));
}
if (failures.length) {
  console.error(`[image] ${failures.length} check(s) failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
