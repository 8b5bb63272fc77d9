/**
 * Probes: one HTTP GET, TCP connect or exec check (`check`), and a `ProbeWorker` that runs a probe on
 * its period and turns results into a state with the thresholds (initialDelaySeconds, periodSeconds,
 * timeoutSeconds, successThreshold, failureThreshold).
 */
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { isObject, type JsonObject } from '../schema/types.js';

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});
const a = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface ProbeTarget {
  podIP: string;
  container: JsonObject;
  env: Record<string, string>;
  cwd: string;
}

export interface CheckResult {
  ok: boolean;
  message: string;
}

/** A named port (`http`) → the container's port number. */
export function portOf(port: unknown, container: JsonObject): number {
  if (typeof port === 'number') return port;
  const named = a(container.ports)
    .map(o)
    .find((p) => p.name === port);
  return Number(named?.containerPort ?? port);
}

function httpCheck(h: JsonObject, t: ProbeTarget, timeoutMs: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const headers = Object.fromEntries(
      a(h.httpHeaders)
        .map(o)
        .map((x) => [String(x.name), String(x.value)]),
    );
    const req = request(
      {
        host: String(h.host ?? t.podIP),
        port: portOf(h.port, t.container),
        path: String(h.path ?? '/'),
        method: 'GET',
        headers,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve({ ok: code >= 200 && code < 400, message: `HTTP probe failed with statuscode: ${code}` });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')),
    );
    req.on('error', (err) =>
      resolve({
        ok: false,
        message: `Get "http://${String(h.host ?? t.podIP)}:${portOf(h.port, t.container)}${String(h.path ?? '/')}": ${err.message}`,
      }),
    );
    req.end();
  });
}

function tcpCheck(s: JsonObject, t: ProbeTarget, timeoutMs: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const port = portOf(s.port, t.container);
    const sock = connect({ host: String(s.host ?? t.podIP), port, timeout: timeoutMs });
    sock.once('connect', () => {
      sock.destroy();
      resolve({ ok: true, message: '' });
    });
    sock.once('timeout', () => sock.destroy(new Error('i/o timeout')));
    sock.once('error', (err) =>
      resolve({ ok: false, message: `dial tcp ${String(s.host ?? t.podIP)}:${port}: ${err.message}` }),
    );
  });
}

function execCheck(e: JsonObject, t: ProbeTarget, timeoutMs: number): Promise<CheckResult> {
  const cmd = a(e.command).map(String);
  return new Promise((resolve) => {
    if (cmd.length === 0) return resolve({ ok: false, message: 'exec probe without a command' });
    execFile(cmd[0]!, cmd.slice(1), { env: t.env, cwd: t.cwd, timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({
        ok: !err,
        message: err
          ? `command ${JSON.stringify(cmd.join(' '))} exited with ${String((err as { code?: unknown }).code ?? err.message)}: ${stdout}${stderr}`
          : '',
      });
    });
  });
}

/** Runs a probe (or a preStop/postStart handler, which has the same shape) once. */
export function check(probe: JsonObject, t: ProbeTarget): Promise<CheckResult> {
  const timeoutMs = Math.max(1, Number(probe.timeoutSeconds ?? 1)) * 1000;
  if (isObject(probe.httpGet)) return httpCheck(probe.httpGet, t, timeoutMs);
  if (isObject(probe.tcpSocket)) return tcpCheck(probe.tcpSocket, t, timeoutMs);
  if (isObject(probe.exec)) return execCheck(probe.exec, t, timeoutMs);
  return Promise.resolve({ ok: true, message: '' });
}

export type ProbeKind = 'readiness' | 'liveness' | 'startup';

/** Runs a probe on its period; `onResult` hears each success that changes the state and every failure. */
export class ProbeWorker {
  private timer: NodeJS.Timeout | undefined;
  private successes = 0;
  private failures = 0;
  private stopped = false;
  /** Readiness starts false, liveness true, startup false. */
  state: boolean;

  constructor(
    readonly kind: ProbeKind,
    private readonly probe: JsonObject,
    private readonly target: () => ProbeTarget,
    /**
     * `message` is empty for a success, the failure otherwise; `state` is the state after this result;
     * `failed` says the failures reached failureThreshold.
     */
    private readonly onResult: (state: boolean, message: string, failed: boolean) => void,
  ) {
    this.state = kind === 'liveness';
  }

  start(): void {
    this.schedule(Number(this.probe.initialDelaySeconds ?? 0) * 1000);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.run(), ms);
  }

  private async run(): Promise<void> {
    const r = await check(this.probe, this.target());
    if (this.stopped) return;
    const successThreshold = Number(this.probe.successThreshold ?? 1);
    const failureThreshold = Number(this.probe.failureThreshold ?? 3);
    if (r.ok) {
      this.failures = 0;
      this.successes++;
      if (!this.state && this.successes >= successThreshold) {
        this.state = true;
        this.onResult(true, '', false);
      }
    } else {
      this.successes = 0;
      this.failures++;
      // Every failure is reported (an Unhealthy event); the state flips at the threshold.
      const failed = this.failures >= failureThreshold;
      if (failed) this.state = false;
      this.onResult(this.state, r.message, failed);
    }
    // A startup probe stops once it has succeeded.
    if (this.kind === 'startup' && this.state) return;
    this.schedule(Number(this.probe.periodSeconds ?? 10) * 1000);
  }
}
