/**
 * The ports a process will listen on, checked before its slow start-up work (a database to open, a cluster to
 * read): a port in use is reported at once, naming its setting, rather than after the store started. Each port is
 * bound and released; all are held until every one is bound. (Two settings naming the same port are refused
 * earlier, by the configuration's checks.) A port taken between this check and the real listen is still reported
 * there (listenFailure).
 */
import { createServer, type Server } from 'node:net';
import { listenFailure } from './startup-error.js';

export interface PortSetting {
  /** The environment variable that sets it, e.g. `STEWARD_GATEWAY_PORT`. */
  setting: string;
  /** undefined: the listener is off; 0: any free port (nothing to check). */
  port: number | undefined;
}

/** @throws StartupError (platform/startup-error.ts) naming the setting of the first port that cannot be bound */
export async function checkPorts(host: string, ports: readonly PortSetting[]): Promise<void> {
  const held: Server[] = [];
  try {
    for (const { setting, port } of ports) {
      if (port === undefined || port === 0) continue;
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port, exclusive: true }, () => resolve());
      }).catch((err: unknown) => {
        throw listenFailure(err, setting, host, port);
      });
      held.push(server);
    }
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
