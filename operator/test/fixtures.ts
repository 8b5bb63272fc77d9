import { operatorSettings } from '../../cmd/config/operator-env.js';
import type { OperatorSettings } from '../settings.js';

/**
 * An operator's settings for tests on the test cluster: probes on a free loopback port, and Lease timings short
 * enough (2 s) that a standby takes over within a test.
 */
export function fastLeaseConfig(kubeconfig: string, identity: string): OperatorSettings {
  return operatorSettings({
    STEWARD_KUBECONFIG: kubeconfig,
    STEWARD_POD_NAME: identity,
    STEWARD_PROBE_PORT: '0',
    STEWARD_PROBE_HOST: '127.0.0.1',
    STEWARD_LEASE_DURATION_MS: '2000',
    STEWARD_LEASE_RENEW_DEADLINE_MS: '1500',
    STEWARD_LEASE_RETRY_PERIOD_MS: '100',
  });
}
