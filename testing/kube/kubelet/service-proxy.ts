/**
 * kube-proxy in miniature: per Service port a TCP listener on the Service's reachable address that
 * forwards each connection to the next ready endpoint (round robin). No endpoint → the connection is
 * closed at once, as a REJECT rule would.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Endpoint } from './endpoints.js';

export class PortProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private next = 0;

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly endpoints: () => Endpoint[],
    private readonly log: (msg: string) => void,
  ) {
    this.server = createServer((client) => this.forward(client));
    this.server.on('error', (err) => this.log(`service proxy ${host}:${port}: ${err.message}`));
  }

  listen(): Promise<void> {
    return new Promise((resolve) => {
      this.server.once('listening', () => resolve());
      this.server.once('error', () => resolve());
      this.server.listen(this.port, this.host);
    });
  }

  /** The next endpoint in round-robin order, if any. */
  pick(): Endpoint | undefined {
    const eps = this.endpoints();
    if (eps.length === 0) return undefined;
    return eps[this.next++ % eps.length];
  }

  private forward(client: Socket): void {
    const ep = this.pick();
    if (!ep) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: ep.ip, port: ep.port });
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
