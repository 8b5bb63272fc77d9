import { afterEach, describe, expect, it } from 'vitest';
import { PII_REDACTION_KINDS, SECRET_REDACTION_KINDS, validateManifest } from '../../../api/index.js';
import { ask, closeEngine, policy, startEngine } from './harness.js';

const BLOCK_WORD = (pkg: string, word: string) =>
  `package ${pkg}\ndeny contains "found ${word}" if contains(input.query, "${word}")\n`;
const redact = (name: string, spec: Record<string, unknown>) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec: ${JSON.stringify({ type: 'redaction', action: 'redact', ...spec })}\n---\n`;
const OUT = { surface: 'llm_output' } as const;

afterEach(closeEngine);

describe('the llm_output surface', () => {
  it('is opt-in: a policy without surfaces applies to every input surface, not to the answer', async () => {
    const e = await startEngine(
      policy('everywhere', {}, BLOCK_WORD('p.everywhere', 'x')) +
        policy('answers', { scope: { surfaces: ['llm_output'] } }, BLOCK_WORD('p.answers', 'y')),
    );
    expect(ask(e, 'x').approved).toBe(false);
    expect(ask(e, 'x', { surface: 'llm' }).approved).toBe(false);
    expect(ask(e, 'x', OUT).approved).toBe(true);
    expect(ask(e, 'y', OUT)).toMatchObject({ approved: false, blockReason: 'answers: found y' });
    expect(ask(e, 'y').approved).toBe(true);
    expect(e.hasPolicies(OUT)).toBe(true);
  });

  it('has no policy in scope when none names it', async () => {
    const e = await startEngine(policy('everywhere', {}, BLOCK_WORD('p.everywhere', 'x')));
    expect(e.hasPolicies(OUT)).toBe(false);
    expect(e.hasPolicies({ surface: 'pre-check' })).toBe(true);
    expect(e.redactKinds(OUT)).toEqual([]);
  });
});

describe('redactKinds', () => {
  it('is the union of the enabled redact policies in scope, shorthands expanded, and llm_output only', async () => {
    const e = await startEngine(
      redact('cards', { redact: { kinds: ['payment_card', 'us_ssn'] } }) +
        redact('eu-secrets', { redact: { kinds: ['secrets'] }, scope: { tenants: ['eu'] } }) +
        redact('off', { enabled: false, redact: { kinds: ['email'] } }),
    );
    expect(e.redactKinds(OUT)).toEqual(['payment_card', 'us_ssn']);
    expect(e.redactKinds({ ...OUT, tenantId: 'eu' })).toEqual(['payment_card', 'us_ssn', ...SECRET_REDACTION_KINDS]);
    expect(e.redactKinds({ surface: 'llm' })).toEqual([]);
    // a redact policy is no Rego policy: input surfaces evaluate nothing for it
    expect(e.hasPolicies(OUT)).toBe(false);
    expect(e.active()).toEqual(['cards', 'eu-secrets']);
    expect(e.redactKinds(OUT)).toBe(e.redactKinds(OUT));
  });
});

describe('validation of a redact policy', () => {
  const check = (spec: Record<string, unknown>) =>
    validateManifest({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'r' },
      spec: { type: 'redaction', action: 'redact', ...spec },
    });

  it.each([
    ['has Rego', { redact: { kinds: ['pii'] }, rego: 'package x' }, 'spec.rego', /redact policy has no spec.rego/],
    [
      'has a wasm bundle',
      { redact: { kinds: ['pii'] }, wasm: { bundleBase64: 'AA==', entrypoint: 'x/deny' } },
      'spec.wasm',
      /redact policy has no spec.rego or spec.wasm/,
    ],
    ['lists no kinds', {}, 'spec.redact', /spec.redact.kinds is required/],
    [
      'names an input surface',
      { redact: { kinds: ['pii'] }, scope: { surfaces: ['llm_output', 'pre-check'] } },
      'spec.scope.surfaces',
      /llm_output only, not pre-check/,
    ],
    ['names an unknown kind', { redact: { kinds: ['credit_card'] } }, 'spec.redact.kinds[0]', /pii.*secrets.*us_ssn/],
  ])('is refused when it %s', (_name, spec, field, message) => {
    const r = check(spec);
    expect(r.valid).toBe(false);
    expect(r.errors).toContainEqual({ field, message: expect.stringMatching(message) });
  });

  it('accepts kinds and shorthands, without scope', () => {
    expect(check({ redact: { kinds: ['pii', 'github_token'] } }).errors).toEqual([]);
  });

  it('refuses spec.redact on a block policy', () => {
    const r = validateManifest({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'b' },
      spec: { type: 'x', rego: 'package x', redact: { kinds: ['pii'] } },
    });
    expect(r.errors).toContainEqual({
      field: 'spec.redact',
      message: 'spec.redact is only allowed with action redact',
    });
  });

  it('knows every kind once', () => {
    expect(new Set([...PII_REDACTION_KINDS, ...SECRET_REDACTION_KINDS]).size).toBe(
      PII_REDACTION_KINDS.length + SECRET_REDACTION_KINDS.length,
    );
  });
});
