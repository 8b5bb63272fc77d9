import { describe, expect, it } from 'vitest';
import { connectorConditions } from './checks.js';

describe('connectorConditions', () => {
  const ref = { name: 'pg', key: 'url' };
  it.each([
    { name: 'resolves a Connector that references no Secret', facts: {}, status: 'True', reason: 'ReferencesResolved' },
    {
      name: 'resolves a Secret and key that exist',
      facts: { secretRef: ref },
      status: 'True',
      reason: 'ReferencesResolved',
    },
    {
      name: 'reports a missing Secret with its name',
      facts: { secretRef: ref, secretProblem: 'Secret pg not found' },
      status: 'False',
      reason: 'SecretMissing',
      message: 'spec.connection.secretRef: Secret pg not found',
    },
    {
      name: "reports the gateway's failed health check",
      facts: { secretRef: ref, health: 'unhealthy', healthMessage: 'connection refused' },
      status: 'False',
      reason: 'HealthCheckFailed',
      message: 'connection refused',
    },
    {
      name: 'puts a missing Secret before a failed health check',
      facts: { secretRef: ref, secretProblem: 'Secret pg not found', health: 'unhealthy' },
      status: 'False',
      reason: 'SecretMissing',
    },
  ])('$name', ({ facts, status, reason, message }) => {
    const [c] = connectorConditions(facts);
    expect(c).toMatchObject({ type: 'Ready', status, reason, ...(message ? { message } : {}) });
  });
});
