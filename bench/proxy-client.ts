/**
 * The client side of the proxy benchmark: what each row sends (the same chat request, in each gateway's dialect)
 * and the sequential measurements, one keep-alive connection (undici) per row: whole-answer latency, and for streams
 * the time to the first body byte, to the first chunk with content, and to the end.
 */
import { Pool } from 'undici';
import { PACED_MODEL } from './upstream-server.js';

/** One row: where the requests go and how they are written. */
export interface Target {
  label: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** the request body; `stream` only for the chat wire */
  body(opts: { stream: boolean; prompt: string }): string;
  /** the process whose CPU and memory the row reports; undefined for the stand-in called directly */
  pid?: number;
}

export const BENIGN_PROMPT =
  'Summarise our travel policy for booking a flight to Berlin next week in three short bullet points.';
export const SSN_PROMPT = 'Please update my employee file: my SSN is 123-45-6789 and my new address follows.';

/**
 * The OpenAI Chat Completions body every chat row sends (stream: the paced model and the usage chunk).
 * NB: `max_tokens` is small because Steward charges each call prompt characters / 4 + max_tokens against its
 * tokens-per-minute limit; the stand-in answers its chunks whatever the budget.
 */
export function chatBody({ stream, prompt }: { stream: boolean; prompt: string }): string {
  return JSON.stringify({
    model: stream ? PACED_MODEL : 'gpt-4o-mini',
    messages: [{ role: 'user', content: prompt }],
    max_tokens: 16,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** `POST /v1/execute` (spec/service-reference.md): a prompt and the LLM options. */
export function executeBody({ prompt }: { prompt: string }): string {
  return JSON.stringify({ prompt, model: 'gpt-4o-mini', max_tokens: 16 });
}

/** One answer: its status and body, for the checks before the measurements. */
export async function once(t: Target, prompt: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${t.origin}${t.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body: t.body({ stream: false, prompt }),
  });
  return { status: res.status, body: await res.text() };
}

/** Keep-alive connections to each origin, kept across rounds (as a client SDK keeps them). */
const pools = new Map<string, Pool>();
function poolOf(origin: string): Pool {
  let p = pools.get(origin);
  if (!p) pools.set(origin, (p = new Pool(origin, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 })));
  return p;
}

export async function closePools(): Promise<void> {
  await Promise.all([...pools.values()].map((p) => p.close()));
  pools.clear();
}

/** `n` requests one after another; the latency of each whole answer, ms. Throws on any answer but 200. */
export async function sequential(t: Target, n: number): Promise<number[]> {
  const pool = poolOf(t.origin);
  const body = t.body({ stream: false, prompt: BENIGN_PROMPT });
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await pool.request({
      path: t.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...t.headers },
      body,
    });
    const text = await res.body.text();
    out.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`${t.label}: ${res.statusCode} ${text.slice(0, 300)}`);
  }
  return out;
}

export interface StreamTiming {
  /** first byte of the body */
  firstByteMs: number;
  /** first chunk whose delta has content */
  firstTokenMs: number;
  totalMs: number;
  /** content chunks received */
  contentChunks: number;
}

/** `n` streams one after another. Throws on any answer but 200, or a stream without content or `[DONE]`. */
export async function sequentialStreams(t: Target, n: number): Promise<StreamTiming[]> {
  const pool = poolOf(t.origin);
  const body = t.body({ stream: true, prompt: BENIGN_PROMPT });
  const out: StreamTiming[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await pool.request({
      path: t.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...t.headers },
      body,
    });
    let firstByteMs = NaN;
    let firstTokenMs = NaN;
    let contentChunks = 0;
    let pending = '';
    let done = false;
    for await (const chunk of res.body) {
      const now = performance.now() - t0;
      if (Number.isNaN(firstByteMs)) firstByteMs = now;
      pending += (chunk as Buffer).toString('utf8');
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trim();
          if (data === '[DONE]') {
            done = true;
            continue;
          }
          const content = (JSON.parse(data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta
            ?.content;
          if (content) {
            contentChunks++;
            if (Number.isNaN(firstTokenMs)) firstTokenMs = now;
          }
        }
      }
    }
    const totalMs = performance.now() - t0;
    if (res.statusCode !== 200 || !done || contentChunks === 0)
      throw new Error(`${t.label}: stream ${res.statusCode}, done=${done}, ${contentChunks} content chunks`);
    out.push({ firstByteMs, firstTokenMs, totalMs, contentChunks });
  }
  return out;
}
