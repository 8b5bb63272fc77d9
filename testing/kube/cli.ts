/**
 * `npm run kube:serve -- --port P --kubeconfig FILE [--crds DIR] [--tls]`: runs the test API server
 * for people and scripts. Prints the kubeconfig path, then serves until SIGTERM or SIGINT.
 */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startTestCluster } from './cluster.js';

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return n;
}

const program = new Command()
  .name('kube:serve')
  .description('Serve the Steward test Kubernetes API server on 127.0.0.1')
  .option('--port <port>', 'port to listen on (0 picks a free one)', port, 0)
  .requiredOption('--kubeconfig <file>', 'where to write the kubeconfig')
  .option('--crds <dir>', 'folder of CustomResourceDefinition YAML/JSON to install')
  .option('--tls', 'serve HTTPS with a self-signed certificate', false)
  .parse();

const opts = program.opts<{ port: number; kubeconfig: string; crds?: string; tls: boolean }>();
const cluster = await startTestCluster({
  port: opts.port,
  kubeconfigPath: resolve(opts.kubeconfig),
  crds: opts.crds ? resolve(opts.crds) : undefined,
  tls: opts.tls,
});
process.stdout.write(`${cluster.kubeconfig}\n`);
process.stderr.write(`test API server listening on ${cluster.url}\n`);

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: shutting down\n`);
  const force = setTimeout(() => process.exit(1), 5_000);
  force.unref();
  void cluster.close().then(() => process.exit(0));
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
