import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered. */
  status: number;
}

/**
 * A webhook receiver on 127.0.0.1: answers each request with `statusFor(n)` (n counts from 1) and lets a test wait
 * for the n-th request without sleeping.
 */
export class Receiver {
  readonly received: Received[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];
  private server!: Server;
  url = '';

  constructor(private readonly statusFor: (n: number, body: string) => number = () => 200) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = this.statusFor(this.received.length + 1, body);
        this.received.push({ headers: req.headers, body, status });
        res.writeHead(status).end();
        for (const w of this.waiters.filter((w) => this.received.length >= w.n)) w.resolve();
        this.waiters = this.waiters.filter((w) => this.received.length < w.n);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** Resolves once `n` requests have arrived. */
  requests(n: number): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
