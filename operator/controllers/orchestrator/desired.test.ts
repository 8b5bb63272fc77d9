import { describe, expect, it } from 'vitest';
import type { V1EnvVar } from '@kubernetes/client-node';
import { orchestrators } from '../parse.js';
import { CONFIG_HASH_ANNOTATION } from '../meta.js';
import {
  orchestrator,
  withCommunityMode,
  withDatabase,
  withImage,
  withIngress,
  withProvider,
  withRedis,
  withTls,
} from '../test/builders.js';
import {
  desiredConfigMap,
  desiredDeployments,
  desiredIngress,
  desiredInternalSecret,
  desiredPdb,
  desiredRbac,
  desiredServices,
  imageOf,
} from './desired.js';
import { internalValues } from './reconcile.js';
import { gatewayEnv, publicUrl } from '../env.js';

const inputs = {
  image: 'ghcr.io/steward-dev/steward:1.2.3',
  replicas: { gateway: 2, orchestrator: 1 },
  configHash: 'abc',
};
const parsed = (...args: Parameters<typeof orchestrator>) => orchestrators.parse(orchestrator(...args));
const envOf = (env: V1EnvVar[] | undefined) =>
  Object.fromEntries((env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

describe('desiredDeployments', () => {
  const o = parsed(
    'prod',
    withDatabase('db'),
    withRedis('cache'),
    withProvider(
      { name: 'main', type: 'openai', model: 'gpt-4o-mini', secretRef: { name: 'llm', key: 'openai' } },
      true,
    ),
  );
  const { gateway, orchestrator: orch } = desiredDeployments(o, inputs);
  const gwEnv = envOf(gateway.spec.template.spec!.containers[0]!.env);
  const orEnv = envOf(orch.spec.template.spec!.containers[0]!.env);

  it.each([
    {
      name: 'names the gateway Deployment O-gateway with the replicas after the cap',
      got: [gateway.metadata.name, gateway.spec.replicas],
      want: ['prod-gateway', 2],
    },
    {
      name: 'names the orchestrator Deployment O-orchestrator',
      got: [orch.metadata.name, orch.spec.replicas],
      want: ['prod-orchestrator', 1],
    },
    {
      name: 'runs `steward gateway` in the image given',
      got: [gateway.spec.template.spec!.containers[0]!.args, gateway.spec.template.spec!.containers[0]!.image],
      want: [['gateway'], inputs.image],
    },
    { name: 'runs the pods as O-runtime', got: gateway.spec.template.spec!.serviceAccountName, want: 'prod-runtime' },
    {
      name: 'puts the config hash on the pod template',
      got: gateway.spec.template.metadata!.annotations![CONFIG_HASH_ANNOTATION],
      want: 'abc',
    },
    {
      name: 'labels the gateway with name, instance, component and managed-by',
      got: gateway.metadata.labels,
      want: {
        'app.kubernetes.io/name': 'steward',
        'app.kubernetes.io/instance': 'prod',
        'app.kubernetes.io/component': 'gateway',
        'app.kubernetes.io/managed-by': 'steward-operator',
      },
    },
    {
      name: 'owns the Deployment through a controller reference',
      got: gateway.metadata.ownerReferences,
      want: [
        {
          apiVersion: 'steward.dev/v1alpha1',
          kind: 'Orchestrator',
          name: 'prod',
          uid: 'uid-prod',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    {
      name: 'probes /healthz for liveness and /readyz for readiness',
      got: [
        gateway.spec.template.spec!.containers[0]!.livenessProbe!.httpGet!.path,
        gateway.spec.template.spec!.containers[0]!.readinessProbe!.httpGet!.path,
      ],
      want: ['/healthz', '/readyz'],
    },
    {
      name: 'gives the gateway its port and the orchestrator URL',
      got: [gwEnv.STEWARD_GATEWAY_PORT, gwEnv.STEWARD_ORCHESTRATOR_URL],
      want: ['8080', 'http://prod-orchestrator.default.svc:8081'],
    },
    {
      name: 'gives the orchestrator PORT and kubernetes discovery',
      got: [orEnv.PORT, orEnv.STEWARD_AGENT_DISCOVERY],
      want: ['8081', 'kubernetes'],
    },
    {
      name: 'reads the namespace and pod name through the downward API, and leaves the listen address at every interface',
      got: [gwEnv.STEWARD_NAMESPACE, gwEnv.STEWARD_POD_NAME, gwEnv.STEWARD_HOST],
      want: [
        { fieldRef: { fieldPath: 'metadata.namespace' } },
        { fieldRef: { fieldPath: 'metadata.name' } },
        undefined,
      ],
    },
    {
      name: 'sets the cluster source, the Orchestrator name and JSON logs',
      got: [gwEnv.STEWARD_SOURCE, gwEnv.STEWARD_ORCHESTRATOR_NAME, gwEnv.LOG_FORMAT],
      want: ['kubernetes', 'prod', 'json'],
    },
    {
      name: 'reads DATABASE_URL and REDIS_URL from their Secrets',
      got: [orEnv.DATABASE_URL, orEnv.REDIS_URL],
      want: [{ secretKeyRef: { name: 'db', key: 'url' } }, { secretKeyRef: { name: 'cache', key: 'url' } }],
    },
    {
      name: 'gives the orchestrator the gateway URL for connector-call steps',
      got: orEnv.STEWARD_GATEWAY_URL,
      want: 'http://prod-gateway.default.svc:8080',
    },
    {
      name: 'reads the internal secrets from O-internal',
      got: [gwEnv.STEWARD_INTERNAL_SECRET, orEnv.STEWARD_AGENT_TOKEN],
      want: [
        { secretKeyRef: { name: 'prod-internal', key: 'internal-secret' } },
        { secretKeyRef: { name: 'prod-internal', key: 'agent-token' } },
      ],
    },
    { name: 'is not in community mode unless the spec says so', got: gwEnv.STEWARD_COMMUNITY_MODE, want: 'false' },
    {
      name: 'maps an openai provider to its variables and the default provider to its type',
      got: [gwEnv.OPENAI_API_KEY, gwEnv.STEWARD_OPENAI_MODEL, gwEnv.STEWARD_LLM_DEFAULT_PROVIDER],
      want: [{ secretKeyRef: { name: 'llm', key: 'openai' } }, 'gpt-4o-mini', 'openai'],
    },
  ])('$name', ({ got, want }) => expect(got).toEqual(want));

  it('mounts the TLS Secret and serves HTTPS with spec.tls', () => {
    const d = desiredDeployments(parsed('prod', withTls('orch-tls')), inputs).orchestrator;
    const c = d.spec.template.spec!.containers[0]!;
    expect(d.spec.template.spec!.volumes).toEqual([{ name: 'tls', secret: { secretName: 'orch-tls' } }]);
    expect(c.volumeMounts).toEqual([{ name: 'tls', mountPath: '/etc/steward/tls', readOnly: true }]);
    expect(envOf(c.env)).toMatchObject({
      STEWARD_TLS_CERT_FILE: '/etc/steward/tls/tls.crt',
      STEWARD_TLS_KEY_FILE: '/etc/steward/tls/tls.key',
    });
    expect(c.readinessProbe!.httpGet!.scheme).toBe('HTTPS');
  });

  it('sets community mode when the spec asks for it', () => {
    expect(
      envOf(
        desiredDeployments(parsed('dev', withCommunityMode()), inputs).gateway.spec.template.spec!.containers[0]!.env,
      ).STEWARD_COMMUNITY_MODE,
    ).toBe('true');
  });
});

describe('the other objects', () => {
  const o = parsed('prod');

  it.each([
    {
      name: 'serves the gateway on 8080 and the orchestrator on 8081, ports named http',
      got: Object.values(desiredServices(o)).map((s) => [
        s.metadata.name,
        s.spec.ports![0]!.port,
        s.spec.ports![0]!.name,
      ]),
      want: [
        ['prod-gateway', 8080, 'http'],
        ['prod-orchestrator', 8081, 'http'],
      ],
    },
    {
      name: 'keeps the shared non-secret settings in O-config',
      got: desiredConfigMap(o).data,
      want: {
        STEWARD_SOURCE: 'kubernetes',
        STEWARD_ORCHESTRATOR_NAME: 'prod',
        LOG_FORMAT: 'json',
        STEWARD_COMMUNITY_MODE: 'false',
        STEWARD_ORCHESTRATOR_URL: 'http://prod-orchestrator.default.svc:8081',
        STEWARD_GATEWAY_URL: 'http://prod-gateway.default.svc:8080',
      },
    },
    {
      name: 'makes a PDB with maxUnavailable 1 when there are several replicas',
      got: desiredPdb(o, 'gateway', 2)?.spec.maxUnavailable,
      want: 1,
    },
    { name: 'makes no PDB for a single replica', got: desiredPdb(o, 'gateway', 1), want: undefined },
    { name: 'makes no Ingress unless enabled', got: desiredIngress(o), want: undefined },
    {
      name: 'routes the Ingress host to the gateway Service',
      got: desiredIngress(parsed('prod', withIngress('steward.example.com')))?.spec.rules,
      want: [
        {
          host: 'steward.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'prod-gateway', port: { name: 'http' } } } },
            ],
          },
        },
      ],
    },
    {
      name: 'binds O-runtime to its Role',
      got: desiredRbac(o).roleBinding.subjects,
      want: [{ kind: 'ServiceAccount', name: 'prod-runtime', namespace: 'default' }],
    },
    {
      name: 'uses the repository and tag of the spec',
      got: imageOf(parsed('prod', withImage('registry.local/steward', '9.9')), 'x:1'),
      want: 'registry.local/steward:9.9',
    },
    {
      name: "uses the operator's image when the spec has the default",
      got: imageOf(o, 'ghcr.io/steward-dev/steward:0.1.0'),
      want: 'ghcr.io/steward-dev/steward:0.1.0',
    },
  ])('$name', ({ got, want }) => expect(got).toEqual(want));

  it('encodes O-internal and leaves out the signing secret when the operator has none', () => {
    const s = desiredInternalSecret(o, {
      internalSecret: 'i'.repeat(64),
      agentToken: 't'.repeat(64),
      auditSigningKey: 'PRIVATE PEM',
      auditPublicKey: 'PUBLIC PEM',
      a2aCardKey: 'CARD PEM',
    });
    expect(Object.keys(s.data).sort()).toEqual([
      'a2a-card-key',
      'agent-token',
      'audit-public-key',
      'audit-signing-key',
      'internal-secret',
    ]);
    expect(Buffer.from(s.data['agent-token']!, 'base64').toString()).toBe('t'.repeat(64));
    expect(Buffer.from(s.data['audit-public-key']!, 'base64').toString()).toBe('PUBLIC PEM');
  });

  it('mounts the audit and A2A card signing keys into the gateway pods only, and keeps generated keys', () => {
    const d = desiredDeployments(o, inputs);
    const gw = d.gateway.spec.template.spec!;
    expect(gw.volumes).toEqual([
      expect.objectContaining({
        name: 'audit-key',
        secret: expect.objectContaining({
          items: [expect.objectContaining({ key: 'audit-signing-key', mode: 0o400 })],
        }),
      }),
      expect.objectContaining({
        name: 'a2a-card-key',
        secret: expect.objectContaining({
          items: [expect.objectContaining({ key: 'a2a-card-key', mode: 0o400 })],
        }),
      }),
    ]);
    expect(gw.containers[0]!.env).toContainEqual({
      name: 'STEWARD_AUDIT_SIGNING_KEY_FILE',
      value: '/etc/steward/audit/audit-signing-key.pem',
    });
    expect(gw.containers[0]!.env).toContainEqual({
      name: 'STEWARD_A2A_SIGNING_KEY_FILE',
      value: '/etc/steward/a2a/a2a-card-key.pem',
    });
    // Without an Ingress host the cards name the gateway Service.
    expect(gw.containers[0]!.env).toContainEqual({
      name: 'STEWARD_PUBLIC_URL',
      value: `http://${o.metadata.name}-gateway.${o.metadata.namespace}.svc:8080`,
    });
    expect(d.orchestrator.spec.template.spec!.volumes ?? []).toEqual([]);
    const first = internalValues(undefined, undefined);
    expect(first.auditSigningKey).toContain('BEGIN PRIVATE KEY');
    const encoded = desiredInternalSecret(o, first).data;
    const again = internalValues({ data: encoded }, undefined);
    expect(again.auditSigningKey).toBe(first.auditSigningKey);
    expect(again.auditPublicKey).toBe(first.auditPublicKey);
    expect(first.a2aCardKey).toContain('BEGIN PRIVATE KEY');
    expect(again.a2aCardKey).toBe(first.a2aCardKey);
  });

  it.each([
    {
      name: 'an Ingress host with TLS',
      ingress: { enabled: true, host: 'ai.example.com', tlsSecretName: 't' },
      want: 'https://ai.example.com',
    },
    {
      name: 'an Ingress host without TLS',
      ingress: { enabled: true, host: 'ai.example.com' },
      want: 'http://ai.example.com',
    },
    { name: 'a disabled Ingress', ingress: { enabled: false, host: 'ai.example.com' }, want: 'svc' },
  ])('gives the gateway its public URL from $name', ({ ingress, want }) => {
    const withIngress = { ...o, spec: { ...o.spec, ingress } } as typeof o;
    const url = publicUrl(withIngress);
    expect(url).toBe(want === 'svc' ? `http://${o.metadata.name}-gateway.${o.metadata.namespace}.svc:8080` : want);
  });

  it.each([
    { name: 'absent', console: undefined, want: undefined },
    { name: 'enabled', console: { enabled: true }, want: undefined },
    { name: 'disabled', console: { enabled: false }, want: 'false' },
  ])('tells the gateway STEWARD_CONSOLE when spec.console is $name', ({ console, want }) => {
    const env = gatewayEnv({ ...o, spec: { ...o.spec, console } } as typeof o);
    expect(env.find((e) => e.name === 'STEWARD_CONSOLE')?.value).toBe(want);
  });

  it('grants the runtimes read access to every kind and writes to the statuses only', () => {
    const rules = desiredRbac(o).role.rules;
    expect(rules).toContainEqual({
      apiGroups: ['steward.dev'],
      resources: ['orchestrators', 'agentconfigs', 'policies', 'connectors', 'licenses', 'policyexceptions', 'budgets'],
      verbs: ['get', 'list', 'watch'],
    });
    expect(rules.flatMap((r) => r.resources ?? []).filter((r) => r.endsWith('/status'))).toEqual([
      'policies/status',
      'connectors/status',
      'agentconfigs/status',
      'orchestrators/status',
      'budgets/status',
    ]);
  });
});
