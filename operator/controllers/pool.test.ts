import { describe, expect, it } from 'vitest';
import { agentConfigs, licenses, orchestrators } from './parse.js';
import { nodeCap, poolOwner } from './pool.js';
import {
  agentConfig,
  license,
  orchestrator,
  withLabels,
  withLicense,
  withPoolSelector,
  withReplicas,
  withStatus,
} from './test/builders.js';

const orchs = (...o: ReturnType<typeof orchestrator>[]) => orchestrators.parseAll(o);
const agents = (...a: ReturnType<typeof agentConfig>[]) => agentConfigs.parseAll(a);

describe('poolOwner', () => {
  it.each([
    { name: 'picks the Orchestrator without a selector', os: orchs(orchestrator('prod')), owner: 'prod' },
    {
      name: 'picks the first by name when several select the agent',
      os: orchs(orchestrator('b'), orchestrator('a')),
      owner: 'a',
    },
    {
      name: 'skips an Orchestrator whose selector does not match',
      os: orchs(orchestrator('a', withPoolSelector({ team: 'x' })), orchestrator('b', withPoolSelector({ team: 'y' }))),
      owner: 'b',
    },
    {
      name: 'finds none when no selector matches',
      os: orchs(orchestrator('a', withPoolSelector({ team: 'x' }))),
      owner: undefined,
    },
  ])('$name', ({ os, owner }) => {
    expect(poolOwner(agents(agentConfig('travel', withLabels({ team: 'y' })))[0]!, os)?.metadata.name).toBe(owner);
  });
});

describe('nodeCap', () => {
  const lic = licenses.parseAll([license('acme', 'key', withStatus({ valid: true, maxNodes: 3 }))]);

  it('counts the gateways, orchestrators and pool agents under the License', () => {
    const o = orchs(orchestrator('prod', withLicense('acme'), withReplicas(2)));
    const cap = nodeCap(o[0]!, o, agents(agentConfig('travel', withReplicas(2))), lic)!;
    expect(cap.allocation).toMatchObject({ requested: 6, granted: 3, limited: true, agents: { travel: 1 } });
  });

  it('caps nothing without a licenseRef', () => {
    const o = orchs(orchestrator('prod', withReplicas(5)));
    expect(nodeCap(o[0]!, o, [], lic)).toBeUndefined();
  });
});
