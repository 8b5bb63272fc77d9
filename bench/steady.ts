/**
 * An open-loop load at a constant arrival rate, for latency at a given request rate. Request i is due at
 * t0 + i / rate whatever happened to earlier ones, and its latency runs from that due time to the end of its
 * response (so a stall delays every request due during it, and all of them count: no coordinated omission).
 *
 * NB: autocannon's `overallRate` cannot stand in for this. Each of its connections sends its share of the
 * second back to back and then pauses until the next one-second tick (lib/httpClient.js, `reqsMadeThisSecond`),
 * so "1,000 req/s on 10 connections" is 10 connections at full speed for the first ~100 ms of every second, and
 * its correction for coordinated omission adds synthetic samples at 1 ms steps for every response above 1 ms.
 */
import { Pool } from 'undici';
import { percentile } from './report.js';

export interface SteadyOptions {
  url: string;
  /** @default 'POST' */
  method?: 'GET' | 'POST';
  /** a JSON body (POST) */
  body?: string;
  /** more request headers (a gateway's config header) */
  headers?: Record<string, string>;
  /** requests per second */
  rate: number;
  durationS: number;
  /** keep-alive connections; a request waits for a free one (and that wait counts) @default 10 */
  connections?: number;
}

export interface SteadyResult {
  requests: number;
  errors: number;
  non2xx: number;
  /** latency percentiles, ms, from each request's due time */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** p99 of how late the generator itself sent requests (timer lag), ms: part of every latency above */
  sendLagP99: number;
}

export async function steadyLoad(opts: SteadyOptions): Promise<SteadyResult> {
  const url = new URL(opts.url);
  const pool = new Pool(url.origin, { connections: opts.connections ?? 10, pipelining: 1 });
  const total = Math.round(opts.rate * opts.durationS);
  const latencies: number[] = [];
  const lags: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const send = async (due: number): Promise<void> => {
    lags.push(performance.now() - due);
    try {
      const res = await pool.request({
        path: url.pathname,
        method: opts.method ?? 'POST',
        headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
        body: opts.body,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
      latencies.push(performance.now() - due);
    } catch {
      errors++;
    }
  };
  try {
    const t0 = performance.now();
    const inFlight: Promise<void>[] = [];
    await new Promise<void>((resolve) => {
      let next = 0;
      const tick = (): void => {
        const now = performance.now();
        for (; next < total; next++) {
          const due = t0 + (next * 1000) / opts.rate;
          if (due > now) break;
          inFlight.push(send(due));
        }
        if (next === total) return resolve();
        // NB: Node's timers have 1 ms resolution; the lag this adds is reported as sendLagP99.
        setTimeout(tick, Math.max(0, t0 + (next * 1000) / opts.rate - now));
      };
      tick();
    });
    await Promise.all(inFlight);
  } finally {
    await pool.close();
  }
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  return {
    requests: total,
    errors,
    non2xx,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
    max: latencies.at(-1) ?? NaN,
    sendLagP99: percentile(lags, 99),
  };
}
