import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkItem } from '../../../agent/work.js';

export type WorkMode = 'answer' | 'busy' | 'error' | 'hang';

/**
 * A tiny pool agent over node:http, speaking the remote agent protocol (/readyz, /v1/stats, /v1/work).
 * It can be stopped and restarted on the same port.
 */
export class HttpAgent {
  mode: WorkMode = 'answer';
  ready = true;
  maxInFlight = 2;
  processed = 0;
  /** Items received, in order. */
  readonly received: WorkItem[] = [];
  port = 0;
  /** TCP connections accepted, to see connection reuse. */
  connections = 0;
  private server: Server | undefined;

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', () => this.connections++);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Closes the listener and every connection, as a crashed or restarted pod would. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/readyz') return json(this.ready ? 200 : 503, { ready: this.ready });
    if (req.method === 'GET' && req.url === '/healthz') return json(200, { ok: true });
    if (req.method === 'GET' && req.url === '/v1/stats') {
      return json(200, {
        agentId: `http-${this.port}`,
        queriesProcessed: this.processed,
        inFlight: 0,
        maxInFlight: this.maxInFlight,
        cpuPercent: 1.5,
        memoryMb: 64,
      });
    }
    if (req.method === 'POST' && req.url === '/v1/work') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const work = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WorkItem;
      this.received.push(work);
      if (this.mode === 'hang') return; // never answers; the client's deadline must end the call
      if (this.mode === 'busy') return json(429, { code: 'AGENT_BUSY', message: 'busy' });
      if (this.mode === 'error') return json(500, { code: 'INTERNAL_ERROR', message: 'boom' });
      this.processed++;
      return json(200, {
        status: 'success',
        policyDecision: 'allow',
        result: work.query,
        latencyMs: 1,
        agentId: `http-${this.port}`,
      });
    }
    json(404, { code: 'NOT_FOUND' });
  }
}
