/**
 * Runs the real kubectl against a test cluster: a fresh HOME per call (no discovery cache shared between
 * tests), `-v=8` output kept so a failing assertion can print what went over the wire.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

export interface KubectlResult {
  code: number;
  stdout: string;
  /** stderr without the -v=8 trace lines. */
  stderr: string;
  /** The full -v=8 trace. */
  trace: string;
}

const TRACE = /^[IW]\d{4} /;

export class Kubectl {
  readonly home: string;

  constructor(private readonly kubeconfig: string) {
    this.home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
  }

  private env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.home, KUBECONFIG: this.kubeconfig, KUBECTL_KUBERC: 'false' };
  }

  run(args: string[], opts: { stdin?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        [...args, '-v=8'],
        { env: this.env(), timeout: opts.timeoutMs ?? 20_000, maxBuffer: 32 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const lines = stderr.split('\n');
          const code = err
            ? typeof (err as { code?: unknown }).code === 'number'
              ? (err as { code: number }).code
              : 1
            : 0;
          resolve({
            code,
            stdout,
            stderr: lines
              .filter((l) => !TRACE.test(l) && !/^\s/.test(l))
              .join('\n')
              .trim(),
            trace: stderr,
          });
        },
      );
      if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
    });
  }

  /** Runs and throws with the trace when the exit code is not 0. `timeoutMs` @default 20 s */
  async ok(args: string[], opts: { stdin?: string; timeoutMs?: number } = {}): Promise<string> {
    const r = await this.run(args, opts);
    if (r.code !== 0)
      throw new Error(
        `kubectl ${args.join(' ')} exited ${r.code}\n${r.stderr}\n--- -v=8 trace ---\n${r.trace.slice(-8000)}`,
      );
    return r.stdout;
  }

  /** Starts a long-running kubectl (e.g. `get -w`); collect stdout until `until` matches. */
  spawn(args: string[]): {
    child: ChildProcess;
    output: () => string;
    waitFor: (re: RegExp, timeoutMs?: number) => Promise<string>;
  } {
    const child = spawn(KUBECTL, args, { env: this.env() });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const waitFor = (re: RegExp, timeoutMs = 10_000): Promise<string> =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = (): void => {
          if (re.test(out)) resolve(out);
          else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${re} in:\n${out}`));
          else setTimeout(tick, 25);
        };
        tick();
      });
    return { child, output: () => out, waitFor };
  }

  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
