/** The DNS preload answers cluster names from the kubelet's hosts file and leaves other names alone. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectNode } from './images.js';
import { DNS_PRELOAD } from './preload-path.js';

const dir = mkdtempSync(join(tmpdir(), 'dns-preload-'));
const hosts = join(dir, 'hosts.json');
writeFileSync(
  hosts,
  JSON.stringify({ 'web.shop.svc.cluster.local': '127.96.1.2', 'db.other.svc.cluster.local': '127.96.1.3' }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = `
import dns from 'node:dns';
const names = JSON.parse(process.argv[1]);
const out = {};
for (const n of names) {
  out[n] = await new Promise((r) => dns.lookup(n, (err, address) => r(err ? 'ERR ' + err.code : address)));
  const p = await dns.promises.lookup(n, { all: true }).then((a) => a[0].address, (err) => 'ERR ' + err.code);
  if (p !== out[n]) out[n] += ' (promises: ' + p + ')';
}
console.log(JSON.stringify(out));
`;

function lookup(names: string[]): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    execFile(
      projectNode(),
      ['--input-type=module', '-e', SCRIPT, JSON.stringify(names)],
      {
        env: {
          PATH: process.env.PATH,
          NODE_OPTIONS: `--import=${DNS_PRELOAD}`,
          STEWARD_KUBE_HOSTS: hosts,
          STEWARD_KUBE_NAMESPACE: 'shop',
        },
      },
      (err, stdout, stderr) =>
        err ? reject(new Error(stderr || err.message)) : resolve(JSON.parse(stdout) as Record<string, string>),
    );
  });
}

describe('DNS preload', () => {
  it('resolves NAME, NAME.NS, NAME.NS.svc and the full name; other names go to the system resolver', async () => {
    const got = await lookup([
      'web',
      'WEB.',
      'web.shop',
      'web.shop.svc',
      'web.shop.svc.cluster.local',
      'db.other',
      'db',
      'localhost',
    ]);
    expect(got).toMatchObject({
      web: '127.96.1.2',
      'WEB.': '127.96.1.2',
      'web.shop': '127.96.1.2',
      'web.shop.svc': '127.96.1.2',
      'web.shop.svc.cluster.local': '127.96.1.2',
      'db.other': '127.96.1.3',
    });
    // A Service of another namespace needs its namespace; localhost is the system's answer.
    expect(got.db).not.toBe('127.96.1.3');
    expect(got.localhost).toMatch(/^(127\.0\.0\.1|::1)$/);
  }, 30_000);
});

const LISTEN = `
import net from 'node:net';
import http from 'node:http';
const out = [];
for (const args of [[0], [0, '0.0.0.0'], [{ port: 0 }], [{ port: 0, host: '::' }], [0, '127.0.0.1']]) {
  const server = http.createServer();
  await new Promise((r) => server.listen(...args, r));
  out.push(server.address().address);
  await new Promise((r) => server.close(r));
}
console.log(JSON.stringify(out));
`;

describe('listen preload', () => {
  it('binds the pod IP when a server listens on every interface, and keeps an explicit address', async () => {
    const got = await new Promise<string[]>((resolve, reject) => {
      execFile(
        projectNode(),
        ['--input-type=module', '-e', LISTEN],
        {
          env: { PATH: process.env.PATH, NODE_OPTIONS: `--import=${DNS_PRELOAD}`, STEWARD_KUBE_POD_IP: '127.77.250.9' },
        },
        (err, stdout, stderr) =>
          err ? reject(new Error(stderr || err.message)) : resolve(JSON.parse(stdout) as string[]),
      );
    });
    expect(got).toEqual(['127.77.250.9', '127.77.250.9', '127.77.250.9', '127.77.250.9', '127.0.0.1']);
  }, 30_000);
});
