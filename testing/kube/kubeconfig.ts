/**
 * The kubeconfig clients use to reach the test server, and a self-signed certificate for TLS mode.
 * kubectl accepts a plain `http://` server; client-node wants a token and, with TLS, skips verification.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

export const TEST_TOKEN = 'steward-test-token';
export const CONTEXT_NAME = 'steward-test';

export function kubeconfigYaml(server: string, namespace = 'default'): string {
  const cluster: Record<string, unknown> = { server };
  // NB: client-node refuses plain http unless verification is "skipped"; kubectl ignores it for http.
  cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster }],
    users: [{ name: CONTEXT_NAME, user: { token: TEST_TOKEN } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  });
}

const run = promisify(execFile);

/** A throwaway self-signed certificate for 127.0.0.1 and localhost (needs the openssl binary). */
export async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=steward-test-apiserver',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { timeout: 10_000 },
    );
    return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function writeKubeconfig(path: string, server: string): Promise<void> {
  await writeFile(path, kubeconfigYaml(server), { mode: 0o600 });
}
