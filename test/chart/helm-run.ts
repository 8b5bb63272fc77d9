/**
 * helm for the chart's tests: the binary of testing/helm.ts with its own HOME (no repositories, no cache
 * shared between runs) and, when given, the test cluster's kubeconfig.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helmBinary } from '../../testing/helm.js';

export const CHART = fileURLToPath(new URL('../../charts/steward/', import.meta.url));
const HELM = helmBinary();
const home = mkdtempSync(join(tmpdir(), 'steward-chart-helm-'));

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function helm(args: string[], opts: { kubeconfig?: string; timeoutMs?: number } = {}): Promise<HelmResult> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_DATA_HOME: join(home, 'data'),
    };
    if (opts.kubeconfig) env.KUBECONFIG = opts.kubeconfig;
    execFile(
      HELM,
      args,
      { env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export async function helmOk(args: string[], opts: { kubeconfig?: string; timeoutMs?: number } = {}): Promise<string> {
  const r = await helm(args, opts);
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} exited ${r.code}\n${r.stderr}${r.stdout}`);
  return r.stdout;
}
