import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { defineKind } from '../kind.js';
import { KINDS } from '../kinds.js';
import { UndescribedFieldsError } from './crd.js';
import { buildCrd, generatedFiles } from './index.js';
import { undescribedFields } from './structural.js';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
const files = generatedFiles(pkg.version);

describe('generated artefacts', () => {
  it.each([...files.keys()])('%s is what `npm run gen` writes (run it and commit when this fails)', (rel) => {
    let onDisk: string;
    try {
      onDisk = readFileSync(new URL(rel, root), 'utf8');
    } catch {
      throw new Error(`${rel} is missing; run npm run gen`);
    }
    expect(onDisk).toBe(files.get(rel));
  });

  it.each(KINDS.map((k) => k.kind))('the %s CRD is structural and useful to kubectl', (kind) => {
    const def = KINDS.find((k) => k.kind === kind)!;
    const crd = parse(files.get(`crds/${def.plural}.steward.dev.yaml`)!);
    const version = crd.spec.versions[0];
    expect(crd.spec.names).toMatchObject({
      kind,
      plural: def.plural,
      categories: ['steward'],
      shortNames: def.shortNames,
    });
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.length).toBeGreaterThanOrEqual(3);
    const text = JSON.stringify(version.schema);
    expect(text).not.toContain('"additionalProperties":false');
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('9007199254740991');
    // every node has a type or is explicitly schemaless
    const walk = (node: Record<string, unknown>, path: string): void => {
      expect(node.type !== undefined || node['x-kubernetes-preserve-unknown-fields'] === true, path).toBe(true);
      for (const [k, v] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>))
        walk(v, `${path}.${k}`);
      if (node.items) walk(node.items as Record<string, unknown>, `${path}[]`);
    };
    walk(version.schema.openAPIV3Schema, kind);
  });

  it.each(KINDS.map((k) => k.kind))('every field of the %s CRD carries a description for kubectl explain', (kind) => {
    const def = KINDS.find((k) => k.kind === kind)!;
    const schema = parse(files.get(`crds/${def.plural}.steward.dev.yaml`)!).spec.versions[0].schema.openAPIV3Schema;
    expect(schema.description).toBe(def.description);
    expect(undescribedFields(schema, kind)).toEqual([]);
  });

  it('refuses to generate a CRD with a field that has no description, naming the field', () => {
    const bare = defineKind({
      kind: 'Bare',
      plural: 'bares',
      singular: 'bare',
      shortNames: [],
      description: 'a kind for this test',
      spec: z.object({ outer: z.object({ inner: z.string() }).describe('described') }).describe('the spec'),
      status: z.object({}).describe('the status'),
      printerColumns: [],
    });
    expect(() => buildCrd(bare)).toThrow(UndescribedFieldsError);
    expect(() => buildCrd(bare)).toThrow(/Bare\.spec\.outer\.inner/);
  });

  it('uses no name or short name that a well-known operator already claims', () => {
    const taken = new Set(Object.values(WELL_KNOWN).flat());
    for (const def of KINDS)
      for (const short of def.shortNames) expect(taken.has(short), `${def.kind} short name ${short}`).toBe(false);
    // NB: Kyverno's Policy and PolicyException have the same plurals and singulars; `kubectl get
    // policies.steward.dev` (or stwpol) and `policyexceptions.steward.dev` (or stwpolex) are exact.
    const shared = KINDS.flatMap((k) => [k.plural, k.singular]).filter((n) => taken.has(n));
    expect(shared).toEqual(['policies', 'policy', 'policyexceptions', 'policyexception']);
  });

  // NB: the documents list only served routes (runtime/http/test/api-reference.test.ts compares them with the
  // route tables); the orchestrator's plan, registry, policy, webhook and parallel endpoints join when served.
  it('puts every gateway endpoint of the reference, and the orchestrator routes served today, in the OpenAPI documents', () => {
    const gateway = JSON.parse(files.get('docs/openapi/gateway.json')!);
    const orchestrator = JSON.parse(files.get('docs/openapi/orchestrator.json')!);
    expect(Object.keys(gateway.paths)).toEqual(
      expect.arrayContaining([
        '/health',
        '/metrics',
        '/api/policy/pre-check',
        '/api/audit/llm-call',
        '/api/policies/test',
        '/api/clients',
        '/api/request',
        '/v1/execute',
      ]),
    );
    expect(Object.keys(orchestrator.paths)).toEqual(
      expect.arrayContaining(['/health', '/api/v1/agents/validate', '/metrics/prometheus']),
    );
  });
});

/** Resource names (plural, singular, short names) of CRDs that clusters commonly run beside Steward. */
const WELL_KNOWN: Record<string, string[]> = {
  kyverno: [
    'policies',
    'policy',
    'pol',
    'clusterpolicies',
    'clusterpolicy',
    'cpol',
    'policyreports',
    'polr',
    'clusterpolicyreports',
    'cpolr',
    'policyexceptions',
    'policyexception',
    'polex',
    'cleanuppolicies',
    'cleanpol',
    'updaterequests',
    'ur',
    'validatingpolicies',
    'vpol',
    'mutatingpolicies',
    'mpol',
    'generatingpolicies',
    'gpol',
    'imagevalidatingpolicies',
    'ivpol',
  ],
  kagent: [
    'agents',
    'agent',
    'modelconfigs',
    'modelconfig',
    'toolservers',
    'toolserver',
    'memories',
    'memory',
    'remotemcpservers',
  ],
  gatekeeper: [
    'constrainttemplates',
    'constrainttemplate',
    'configs',
    'config',
    'assign',
    'assignmetadata',
    'modifyset',
    'providers',
    'provider',
    'syncsets',
  ],
  certManager: [
    'certificates',
    'certificate',
    'cert',
    'certs',
    'certificaterequests',
    'cr',
    'crs',
    'issuers',
    'issuer',
    'clusterissuers',
    'orders',
    'challenges',
  ],
  istio: [
    'virtualservices',
    'vs',
    'destinationrules',
    'dr',
    'gateways',
    'gw',
    'serviceentries',
    'se',
    'sidecars',
    'envoyfilters',
    'workloadentries',
    'we',
    'workloadgroups',
    'wg',
    'peerauthentications',
    'pa',
    'requestauthentications',
    'ra',
    'authorizationpolicies',
    'ap',
    'telemetries',
    'telemetry',
    'wasmplugins',
    'proxyconfigs',
  ],
  argo: [
    'applications',
    'application',
    'app',
    'apps',
    'applicationsets',
    'appset',
    'appsets',
    'appprojects',
    'appproj',
    'appprojs',
    'workflows',
    'wf',
    'workflowtemplates',
    'wftmpl',
    'cronworkflows',
    'cwf',
    'cronwf',
    'clusterworkflowtemplates',
    'cwft',
    'rollouts',
    'ro',
    'analysistemplates',
    'analysisruns',
    'experiments',
    'exp',
    'eventsources',
    'es',
    'sensors',
    'sn',
    'eventbus',
    'eb',
  ],
  crossplane: [
    'compositions',
    'comp',
    'compositionrevisions',
    'comprev',
    'compositeresourcedefinitions',
    'xrd',
    'xrds',
    'configurations',
    'functions',
    'environmentconfigs',
    'envcfg',
    'usages',
    'deploymentruntimeconfigs',
    'providerconfigs',
    'providerrevisions',
  ],
};
