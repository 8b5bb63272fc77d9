import { describe, expect, it } from 'vitest';
import { conditionsOf, policyDocument, policyIdOf, policyView, type DynamicPolicyInput } from './document.js';

describe('policyIdOf', () => {
  it.each([
    ['Block competitor talk', 'block-competitor-talk'],
    ['  --Block   Competitor__Talk!!  ', 'block-competitor-talk'],
    ['no-banana', 'no-banana'],
    ['Zürich Café Règles', 'zurich-cafe-regles'],
    ['PII: SSN & cards (v2)', 'pii-ssn-cards-v2'],
    ['3D printing', '3d-printing'],
    ['日本語のポリシー', ''],
    ['!!!', ''],
  ])('derives %j → %j', (name, id) => {
    expect(policyIdOf(name)).toBe(id);
  });

  it('keeps an id within the resource-name limit, with no dash at its end', () => {
    const id = policyIdOf(`${'a'.repeat(99)} b`);
    expect(id).toBe('a'.repeat(99));
    expect(policyIdOf('x'.repeat(300))).toHaveLength(100);
    expect(policyIdOf('x'.repeat(300))).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});

describe('a policy of conditions in its document', () => {
  const input: DynamicPolicyInput = {
    id: 'block-competitor-talk',
    name: 'Block competitor talk',
    type: 'content',
    priority: 10,
    enabled: true,
    action: 'block',
    rego: 'package steward.dynamic.block_competitor_talk\n\ndeny contains "no" if input.query == "x"\n',
    regoVersion: 'v1',
    conditions: {
      conditions: [{ field: 'query', operator: 'equals', value: 'x' }],
      actions: [{ type: 'block', config: { reason: 'no' } }],
    },
  };

  it('is named by its id, shows its display name, and carries its conditions', () => {
    const doc = policyDocument('acme', input);
    expect(doc.metadata.name).toBe('org-acme.block-competitor-talk');
    expect(policyView(doc)).toMatchObject({
      id: 'block-competitor-talk',
      name: 'Block competitor talk',
      rego: input.rego,
      ...input.conditions,
    });
  });

  it('detaches its conditions when its Rego was changed by hand: the view shows the Rego alone', () => {
    const doc = policyDocument('acme', input);
    doc.spec.rego = `${input.rego}\n# edited\n`;
    expect(conditionsOf(doc)).toBeUndefined();
    const view = policyView(doc);
    expect(view).not.toHaveProperty('conditions');
    expect(view).not.toHaveProperty('actions');
  });

  it('ignores an annotation that is not its own JSON', () => {
    const doc = policyDocument('acme', input);
    doc.metadata.annotations!['steward.dev/policy-conditions'] = '{not json';
    expect(conditionsOf(doc)).toBeUndefined();
  });
});
