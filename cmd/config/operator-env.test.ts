import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../platform/config.js';
import { operatorConfigSchema } from './operator-env.js';

describe('operatorConfigSchema', () => {
  it('defaults to leader election over the steward-operator Lease, every namespace, probes on 8082', () => {
    const c = parseConfig(operatorConfigSchema, {});
    expect(c).toMatchObject({
      STEWARD_LEADER_ELECTION: true,
      STEWARD_NAMESPACE: 'default',
      STEWARD_LEASE_NAME: 'steward-operator',
      STEWARD_LEASE_DURATION_MS: 15_000,
      STEWARD_LEASE_RENEW_DEADLINE_MS: 10_000,
      STEWARD_LEASE_RETRY_PERIOD_MS: 2_000,
      STEWARD_PROBE_PORT: 8082,
      STEWARD_OPERATOR_CONCURRENCY: 4,
      STEWARD_DEFAULT_IMAGE: 'ghcr.io/steward-dev/steward:latest',
    });
    expect(c.STEWARD_WATCH_NAMESPACE).toBeUndefined();
    expect(c.STEWARD_KUBECONFIG).toBeUndefined();
  });

  it.each([
    {
      name: 'rejects a renew deadline not shorter than the lease',
      env: { STEWARD_LEASE_DURATION_MS: '5000', STEWARD_LEASE_RENEW_DEADLINE_MS: '5000' },
      variable: 'STEWARD_LEASE_RENEW_DEADLINE_MS',
    },
    {
      name: 'rejects a retry period not shorter than the renew deadline',
      env: { STEWARD_LEASE_RETRY_PERIOD_MS: '10000' },
      variable: 'STEWARD_LEASE_RENEW_DEADLINE_MS',
    },
    {
      name: 'rejects a short license signing secret',
      env: { STEWARD_LICENSE_SIGNING_SECRET: 'short' },
      variable: 'STEWARD_LICENSE_SIGNING_SECRET',
    },
    {
      name: 'rejects leader election set to a word it does not know',
      env: { STEWARD_LEADER_ELECTION: 'maybe' },
      variable: 'STEWARD_LEADER_ELECTION',
    },
  ])('$name', ({ env, variable }) => {
    try {
      parseConfig(operatorConfigSchema, env);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues.map((i) => i.variable)).toContain(variable);
    }
  });
});
