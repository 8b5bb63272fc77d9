/**
 * The operator↔pod environment contract (api/pod-env.ts): what the operator sets on each runtime container is
 * named by the contract, read by that runtime's environment schema, and parses into working settings.
 */
import { describe, expect, it } from 'vitest';
import type { V1EnvVar } from '@kubernetes/client-node';
import { POD_ENV_NAMES } from '../../api/pod-env.js';
import { agentEnv, gatewayEnv, orchestratorEnv } from '../../operator/controllers/env.js';
import { orchestrators } from '../../operator/controllers/parse.js';
import {
  orchestrator,
  withDatabase,
  withProvider,
  withRedis,
  withTls,
} from '../../operator/controllers/test/builders.js';
import { agentConfigSchema, gatewayConfigSchema, orchestratorConfigSchema } from './env.js';
import { agentSettings, gatewaySettings, orchestratorSettings } from './settings.js';

// NB: a variable, not a literal: the builder's parameter type does not list `region`.
const BEDROCK = {
  name: 'bedrock',
  type: 'aws-bedrock',
  model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
  region: 'eu-central-1',
};
const o = orchestrators.parse(
  orchestrator(
    'prod',
    withDatabase('db'),
    withRedis('cache'),
    withTls('prod-tls'),
    withProvider({ name: 'main', type: 'openai', model: 'gpt-4o-mini', secretRef: { name: 'llm', key: 'k' } }, true),
    withProvider({ name: 'local', type: 'ollama', model: 'llama3.1:8b', endpoint: 'http://ollama:11434' }),
    withProvider(BEDROCK),
    (m) =>
      void Object.assign(m.spec.llm as object, {
        prices: { 'openai/gpt-4o-mini': { input: 0.2, output: 0.8 } },
        defaultPrice: { input: 1, output: 2, cachedInput: 0.5 },
      }),
  ),
);

/** What a kubelet would hand the process: downward-API fields and Secret keys resolved to sample values. */
function resolve(env: V1EnvVar[]): Record<string, string> {
  const samples: Record<string, string> = {
    'metadata.namespace': o.metadata.namespace!,
    'metadata.name': 'prod-gateway-7d9f',
  };
  const secretValue = (name: string) =>
    name === 'DATABASE_URL'
      ? 'postgresql://steward@db:5432/steward'
      : name === 'REDIS_URL'
        ? 'redis://cache:6379'
        : 's'.repeat(40);
  return Object.fromEntries(
    env.map((e) => [
      e.name,
      e.value ??
        (e.valueFrom?.fieldRef ? samples[e.valueFrom.fieldRef.fieldPath]! : secretValue(e.name)),
    ]),
  );
}

const components = [
  { name: 'gateway', env: gatewayEnv(o), schema: gatewayConfigSchema, settings: gatewaySettings },
  { name: 'orchestrator', env: orchestratorEnv(o), schema: orchestratorConfigSchema, settings: orchestratorSettings },
  {
    name: 'agent',
    env: agentEnv(o, { name: 'travel', namespace: 'prod-ns' }),
    schema: agentConfigSchema,
    settings: agentSettings,
  },
] as const;

describe('the pod environment contract', () => {
  it.each(components)('every variable the operator sets on the $name is named by the contract', ({ env }) => {
    const names = env.map((e) => e.name);
    expect(names.filter((n) => !POD_ENV_NAMES.includes(n))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(components)("the $name's environment schema reads every variable the operator sets", ({ env, schema }) => {
    const read = Object.keys(schema.shape);
    expect(env.map((e) => e.name).filter((n) => !read.includes(n))).toEqual([]);
  });

  it.each(components)("the operator's $name environment parses into the runtime's settings", ({ env, settings }) => {
    expect(() => settings(resolve(env))).not.toThrow();
  });

  it('carries the cluster identity and the pod wiring into the settings', () => {
    const gw = gatewaySettings(resolve(gatewayEnv(o)));
    expect(gw.cluster).toMatchObject({ source: 'kubernetes', namespace: 'default', orchestratorName: 'prod' });
    expect(gw.orchestrator?.url).toMatch(/^https:\/\/prod-orchestrator\.default\.svc:8081$/);
    expect(gw.store.databaseUrl).toBe('postgresql://steward@db:5432/steward');
    expect(gw.llm.providers.map((p) => p.type)).toEqual(['openai', 'aws-bedrock', 'ollama']);
    expect(gw.llm.defaultProvider).toBe('openai');
    expect(gw.budgets).toMatchObject({
      modelPrices: { 'openai/gpt-4o-mini': { input: 0.2, output: 0.8 } },
      defaultModelPrice: { input: 1, output: 2, cachedInput: 0.5 },
    });
    expect(orchestratorSettings(resolve(orchestratorEnv(o))).budgets.modelPrices).toBeDefined();
    const orch = orchestratorSettings(resolve(orchestratorEnv(o)));
    expect(orch.agents.discovery).toBe('kubernetes');
    expect(orch.tls).toBeDefined();
    expect(orch.gateway?.url).toMatch(/^http:\/\/prod-gateway\.default\.svc:8080$/);
    const agent = agentSettings(resolve(agentEnv(o, { name: 'travel', namespace: 'prod-ns' })));
    expect(agent.agent).toMatchObject({ name: 'travel', namespace: 'prod-ns' });
    expect(agent.listener.port).toBe(8090);
  });

  it('names each variable once', () => {
    expect(new Set(POD_ENV_NAMES).size).toBe(POD_ENV_NAMES.length);
  });
});
