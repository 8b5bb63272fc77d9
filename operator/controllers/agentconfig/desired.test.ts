import { describe, expect, it } from 'vitest';
import { agentConfigs, orchestrators } from '../parse.js';
import { agentConfig, orchestrator, withReplicas } from '../test/builders.js';
import { agentConditions } from './checks.js';
import { desiredAgent } from './desired.js';

const o = orchestrators.parse(orchestrator('prod'));
const a = agentConfigs.parse(agentConfig('travel', withReplicas(3)));
const { deployment, service } = desiredAgent(a, o, { image: 'img:1', replicas: 2, configHash: 'h' });
const env = Object.fromEntries(
  deployment.spec.template.spec!.containers[0]!.env!.map((e) => [e.name, e.value ?? e.valueFrom]),
);

describe('desiredAgent', () => {
  it.each([
    {
      name: 'names the Deployment and Service A-agent',
      got: [deployment.metadata.name, service.metadata.name],
      want: ['travel-agent', 'travel-agent'],
    },
    {
      name: 'runs `steward agent` with the replicas after the cap',
      got: [deployment.spec.template.spec!.containers[0]!.args, deployment.spec.replicas],
      want: [['agent'], 2],
    },
    {
      name: "runs with the Orchestrator's ServiceAccount and image",
      got: [deployment.spec.template.spec!.serviceAccountName, deployment.spec.template.spec!.containers[0]!.image],
      want: ['prod-runtime', 'img:1'],
    },
    {
      name: 'labels the agent objects with steward.dev/agent and the component',
      got: [
        deployment.metadata.labels!['steward.dev/agent'],
        deployment.metadata.labels!['app.kubernetes.io/component'],
        deployment.metadata.labels!['app.kubernetes.io/instance'],
      ],
      want: ['travel', 'agent', 'prod'],
    },
    { name: 'is owned by the AgentConfig', got: deployment.metadata.ownerReferences![0]!.kind, want: 'AgentConfig' },
    {
      name: 'serves port 8090 named http',
      got: [service.spec.ports![0]!.port, service.spec.ports![0]!.name],
      want: [8090, 'http'],
    },
    {
      name: 'tells the agent its name, namespace, port and token',
      got: [env.STEWARD_AGENT_NAME, env.STEWARD_AGENT_NAMESPACE, env.STEWARD_AGENT_PORT, env.STEWARD_AGENT_TOKEN],
      want: ['travel', 'default', '8090', { secretKeyRef: { name: 'prod-internal', key: 'agent-token' } }],
    },
    {
      name: 'selects its pods without the instance label, which may change',
      got: deployment.spec.selector.matchLabels,
      want: {
        'app.kubernetes.io/name': 'steward',
        'app.kubernetes.io/component': 'agent',
        'steward.dev/agent': 'travel',
      },
    },
  ])('$name', ({ got, want }) => expect(got).toEqual(want));
});

describe('agentConditions', () => {
  it.each([
    {
      name: 'waits with NoOrchestrator when no pool selects the agent',
      facts: { requested: 1, wanted: 1, ready: 0 },
      ready: ['False', 'NoOrchestrator'],
      degraded: undefined,
    },
    {
      name: 'is Ready when the ready replicas reach the granted ones',
      facts: { orchestrator: 'prod', requested: 3, wanted: 2, ready: 2, limitedBy: { license: 'acme', maxNodes: 4 } },
      ready: ['True', 'Reconciled'],
      degraded: ['True', 'NodeLimitExceeded'],
    },
    {
      name: 'is not Ready while pods are missing',
      facts: { orchestrator: 'prod', requested: 2, wanted: 2, ready: 1 },
      ready: ['False', 'ReplicasUnavailable'],
      degraded: ['False', 'Reconciled'],
    },
  ])('$name', ({ facts, ready, degraded }) => {
    const [r, d] = agentConditions(facts);
    expect([r!.status, r!.reason]).toEqual(ready);
    expect(d ? [d.status, d.reason] : undefined).toEqual(degraded);
  });
});
