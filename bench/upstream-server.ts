/**
 * Child process of the proxy benchmark: an LLM stand-in on the OpenAI Chat Completions wire, alone in its process so
 * that its CPU is never counted as a gateway's. `POST /v1/chat/completions` answers JSON at once, or, with
 * `stream: true`, Server-Sent Events: the role chunk at once, then `chunks` content chunks `chunkDelayMs` apart, the
 * finish chunk, the usage chunk when `stream_options.include_usage` asks for it, and `[DONE]`.
 * A non-streaming request for the model {@link PACED_MODEL} waits as long as the stream would take before it answers:
 * what a real model does, and what a gateway that asks the provider without streaming waits for.
 *
 * Imports nothing of ours, so that node runs it as it is (type stripping), without tsx's loader thread.
 * Usage: `node bench/upstream-server.ts <port> <chunks> <chunkDelayMs>`; prints READY.
 */
import http from 'node:http';

/** The model name that makes a non-streaming answer take the stream's time. */
export const PACED_MODEL = 'paced';

const WORDS = 'Book the flight through the travel portal at least fourteen days ahead and keep the receipt'.split(' ');

interface ChatBody {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

/** The text of content chunk i (of n): the words dealt out round the chunks. */
function piece(i: number): string {
  return `${WORDS[i % WORDS.length]} `;
}

function serve(port: number, chunks: number, chunkDelayMs: number): http.Server {
  let next = 1;
  const usage = { prompt_tokens: 24, completion_tokens: chunks, total_tokens: 24 + chunks };
  const text = Array.from({ length: chunks }, (_, i) => piece(i)).join('');
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }),
          );
        return;
      }
      let body: ChatBody;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as ChatBody;
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'body is not JSON', type: 'invalid_request_error' } }));
        return;
      }
      const model = typeof body.model === 'string' ? body.model : 'unknown';
      const head = {
        id: `chatcmpl-standin${next++}`,
        created: Math.floor(Date.now() / 1000),
        model,
        system_fingerprint: null,
      };
      if (body.stream === true) {
        stream(res, head, chunks, chunkDelayMs, body.stream_options?.include_usage === true ? usage : undefined);
        return;
      }
      const answer = JSON.stringify({
        ...head,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage,
      });
      const send = () =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
          .end(answer);
      if (model === PACED_MODEL && chunks * chunkDelayMs > 0) setTimeout(send, chunks * chunkDelayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => console.log('READY'));
  return server;
}

function stream(
  res: http.ServerResponse,
  head: Record<string, unknown>,
  chunks: number,
  delayMs: number,
  usage: Record<string, number> | undefined,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const event = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(usage ? { usage: null } : {}) })}\n\n`;
  res.write(event({ role: 'assistant', content: '', refusal: null }, null));
  // NB: the finish (and usage) chunks go with the last content chunk: the stream takes chunks × delay, as the paced JSON answer.
  let i = 0;
  const tick = (): void => {
    if (res.destroyed) return;
    const content = event({ content: piece(i++) }, null);
    if (i < chunks) {
      res.write(content);
      setTimeout(tick, delayMs);
      return;
    }
    let tail = content + event({}, 'stop');
    if (usage) tail += `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`;
    res.end(`${tail}data: [DONE]\n\n`);
  };
  setTimeout(tick, delayMs);
}

const [port, chunks, delay] = process.argv.slice(2).map(Number);
if (import.meta.url === `file://${process.argv[1]}`) {
  serve(port!, chunks ?? 10, delay ?? 5);
  process.on('SIGTERM', () => process.exit(0));
}
