/**
 * Child process of the gateway benchmark: serves the real gateway (standalone wiring, built-in policy pack; or
 * `gateway-process`: the `steward gateway` process's own wiring, on the DATABASE_URL given), the
 * same gateway with the pack's evaluation reduced to its builtin calls (`floor`: policy-floor.ts), or a bare
 * fastify route with a constant JSON body, on the port given, and prints READY.
 */
import Fastify from 'fastify';
import { gatewaySettings, standaloneSettings } from '../cmd/config/settings.js';
import { startGateway } from '../runtime/gateway/main.js';
import { createLogger } from '../platform/log.js';
import { startStandalone } from '../runtime/standalone/main.js';
import { installFloor, recordPack } from './policy-floor.js';
import { GATEWAY_QUERY } from './rego-fixtures.js';

const [mode, port] = [process.argv[2], Number(process.argv[3])];
if (mode === 'bare') {
  const app = Fastify({ logger: false });
  app.post('/api/policy/pre-check', async () => ({
    context_id: 'ctx_constant',
    approved: true,
    policies: [],
    expires_at: '2030-01-01T00:00:00.000Z',
  }));
  await app.listen({ host: '127.0.0.1', port });
} else if (mode === 'gateway-process') {
  const config = gatewaySettings({
    ...process.env,
    LOG_LEVEL: 'warn',
    STEWARD_GATEWAY_PORT: String(port),
    STEWARD_WATCH_MANIFESTS: 'false',
    STEWARD_RATE_LIMIT_PER_MINUTE: '100000000',
    STEWARD_RATE_LIMIT_PER_HOUR: '100000000',
  });
  await startGateway(config, createLogger({ level: 'warn' }), process.env);
} else {
  if (mode === 'floor') installFloor(await recordPack(GATEWAY_QUERY));
  const config = standaloneSettings({
    ...process.env,
    LOG_LEVEL: 'warn',
    STEWARD_GATEWAY_PORT: String(port),
    STEWARD_ORCHESTRATOR_PORT: '0',
    STEWARD_WATCH_MANIFESTS: 'false',
    STEWARD_RATE_LIMIT_PER_MINUTE: '100000000',
    STEWARD_RATE_LIMIT_PER_HOUR: '100000000',
  });
  await startStandalone(config, createLogger({ level: 'warn' }), process.env);
}
console.log('READY');
// Exit cleanly on SIGTERM so that `node --cpu-prof` can write its profile.
process.on('SIGTERM', () => process.exit(0));
