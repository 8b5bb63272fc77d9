import { describe, expect, it } from 'vitest';
import { capReplicas } from '../cap.js';
import { orchestratorConditions, type OrchestratorFacts } from './checks.js';

const healthy: OrchestratorFacts = {
  communityMode: false,
  licenseRef: 'acme',
  license: { valid: true },
  hasDatabase: true,
  secretProblems: [],
  gateway: { wanted: 2, ready: 2 },
  orchestrator: { wanted: 2, ready: 2 },
};

describe('orchestratorConditions', () => {
  it.each([
    {
      name: 'is Ready when the License is valid and the replicas are ready',
      facts: {},
      ready: ['True', 'Reconciled'],
      degraded: ['False', 'Reconciled'],
    },
    {
      name: 'is not Ready without licenseRef outside community mode',
      facts: { licenseRef: undefined, license: undefined },
      ready: ['False', 'LicenseInvalid', 'no licenseRef and communityMode is false'],
    },
    {
      name: 'is Ready without licenseRef in community mode',
      facts: { licenseRef: undefined, license: undefined, communityMode: true },
      ready: ['True', 'Reconciled'],
    },
    {
      name: 'is not Ready when the License does not exist',
      facts: { license: undefined },
      ready: ['False', 'LicenseInvalid', 'License acme not found'],
    },
    {
      name: 'is not Ready when the License is invalid',
      facts: { license: { valid: false, reason: 'expired' } },
      ready: ['False', 'LicenseInvalid', 'License acme is not valid: expired'],
    },
    {
      name: 'is not Ready when the database Secret is missing',
      facts: { databaseProblem: 'Secret db not found' },
      ready: ['False', 'DatabaseUnreachable', 'spec.database: Secret db not found'],
    },
    {
      name: 'is not Ready when another referenced Secret is missing',
      facts: { secretProblems: ['Secret llm not found'] },
      ready: ['False', 'SecretMissing'],
    },
    {
      name: 'is not Ready while replicas are unavailable',
      facts: { gateway: { wanted: 2, ready: 1 } },
      ready: ['False', 'ReplicasUnavailable', 'gateway 1/2 ready'],
    },
    {
      name: 'is Degraded on embedded PGlite with several gateway replicas',
      facts: { hasDatabase: false },
      degraded: ['True', 'DatabaseUnreachable'],
    },
    {
      name: 'is Degraded when the pool has fewer healthy agents than desired',
      facts: { pool: { desired: 3, healthy: 1 } },
      degraded: ['True', 'PoolUnhealthy', '1/3 pool agents healthy'],
    },
    {
      name: 'is Degraded when the License caps the replicas',
      facts: {
        cap: {
          license: 'acme',
          maxNodes: 2,
          allocation: capReplicas(2, { orchestrators: [{ name: 'prod', gateway: 2, orchestrator: 2 }], agents: [] }),
        },
      },
      degraded: ['True', 'NodeLimitExceeded'],
    },
  ])('$name', ({ facts, ready, degraded }) => {
    const [r, d] = orchestratorConditions({ ...healthy, ...facts } as OrchestratorFacts);
    if (ready) expect([r!.status, r!.reason, r!.message].slice(0, ready.length)).toEqual(ready);
    if (degraded) expect([d!.status, d!.reason, d!.message].slice(0, degraded.length)).toEqual(degraded);
  });
});
