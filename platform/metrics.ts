import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

/**
 * What every Steward process exports first, whatever it is (runtime, operator): `steward_build_info` and, unless
 * turned off (tests that count series), prom-client's process and Node.js metrics.
 */
export function registerProcessMetrics(
  registry: Registry,
  options: { version: string; defaultMetrics?: boolean },
): void {
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'steward_build_info',
    help: 'Always 1; the labels say which Steward build and Node.js runtime this process runs.',
    labelNames: ['version', 'node_version'],
    registers: [registry],
  }).set({ version: options.version, node_version: process.version }, 1);
}
