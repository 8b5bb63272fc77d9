/**
 * `npm run kube:serve -- --port P --kubeconfig FILE [--crds DIR] [--tls] [--run-workloads [--image NAME=COMMAND]...]`:
 * runs the test API server for people and scripts. Prints the kubeconfig path, then serves until
 * SIGTERM or SIGINT. With --run-workloads the controllers and the kubelet run too (pods are processes).
 */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startTestCluster } from './cluster.js';
import { parseImageOption } from './kubelet/index.js';

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return n;
}

const program = new Command()
  .name('kube:serve')
  .description('Serve the Steward test Kubernetes API server on 127.0.0.1')
  .option('--port <port>', 'port to listen on (0 picks a free one)', port, 0)
  .requiredOption('--kubeconfig <file>', 'where to write the kubeconfig')
  .option('--crds <dir>', 'folder of CustomResourceDefinition YAML/JSON to install')
  .option('--tls', 'serve HTTPS with a self-signed certificate', false)
  .option('--run-workloads', 'run controllers and a kubelet that runs pods as local processes', false)
  .option('--simulated', 'with --run-workloads: mark pods Running and Ready without processes', false)
  .option(
    '--image <NAME=COMMAND>',
    'map an image (with or without tag) to a command (repeatable)',
    (v: string, all: Record<string, string[]>) => {
      try {
        const [name, argv] = parseImageOption(v);
        return { ...all, [name]: argv };
      } catch (err) {
        throw new InvalidArgumentError((err as Error).message);
      }
    },
    {},
  )
  .parse();

const opts = program.opts<{
  port: number;
  kubeconfig: string;
  crds?: string;
  tls: boolean;
  runWorkloads: boolean;
  simulated: boolean;
  image: Record<string, string[]>;
}>();
const cluster = await startTestCluster({
  port: opts.port,
  kubeconfigPath: resolve(opts.kubeconfig),
  crds: opts.crds ? resolve(opts.crds) : undefined,
  tls: opts.tls,
  workloads: opts.runWorkloads
    ? {
        images: opts.image,
        kubeletMode: opts.simulated ? 'simulated' : 'process',
        log: (m) => process.stderr.write(`${m}\n`),
      }
    : undefined,
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
