import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS } from '../kinds.js';
import { generatedFiles } from './index.js';

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
    expect(crd.spec.names).toMatchObject({ kind, plural: def.plural, categories: ['steward'], shortNames: def.shortNames });
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.length).toBeGreaterThanOrEqual(3);
    const text = JSON.stringify(version.schema);
    expect(text).not.toContain('"additionalProperties":false');
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('9007199254740991');
    // every node has a type or is explicitly schemaless
    const walk = (node: Record<string, unknown>, path: string): void => {
      expect(node.type !== undefined || node['x-kubernetes-preserve-unknown-fields'] === true, path).toBe(true);
      for (const [k, v] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) walk(v, `${path}.${k}`);
      if (node.items) walk(node.items as Record<string, unknown>, `${path}[]`);
    };
    walk(version.schema.openAPIV3Schema, kind);
  });

  it('puts every gateway and orchestrator endpoint of the reference in the OpenAPI documents', () => {
    const gateway = JSON.parse(files.get('docs/openapi/gateway.json')!);
    const orchestrator = JSON.parse(files.get('docs/openapi/orchestrator.json')!);
    expect(Object.keys(gateway.paths)).toEqual(
      expect.arrayContaining(['/health', '/metrics', '/api/policy/pre-check', '/api/audit/llm-call', '/api/policies/test', '/api/clients', '/api/request', '/v1/execute']),
    );
    expect(Object.keys(orchestrator.paths)).toEqual(
      expect.arrayContaining(['/api/v1/plan', '/api/v1/agents', '/api/v1/agents/{agentName}', '/api/v1/agents/validate', '/api/v1/policies', '/api/v1/webhooks', '/orchestrator/parallel', '/orchestrator/health', '/orchestrator/metrics']),
    );
  });
});
