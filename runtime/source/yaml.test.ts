import { describe, expect, it } from 'vitest';
import { documentValue, parseYamlDocuments, YamlLimitError } from './yaml.js';
import { parseManifestFile } from './parse.js';

const valueOf = (text: string, limits?: Parameters<typeof parseYamlDocuments>[1]) => {
  const { documents, lineOf } = parseYamlDocuments(text, limits);
  return documentValue(documents[0]!, lineOf, limits);
};
const LIMITS = { maxChars: 1000, maxNodes: 20, maxDepth: 3, maxAliases: 2 };

describe('YAML within limits', () => {
  it.each([
    { name: 'a text longer than maxChars', text: `a: ${'x'.repeat(1000)}`, error: /longer than 1000 characters/ },
    {
      name: 'more nodes than maxNodes',
      text: Array.from({ length: 11 }, (_, i) => `k${i}: v`).join('\n'),
      error: /more than 20 nodes/,
    },
    { name: 'flow nesting deeper than maxDepth', text: 'a: [[[[1]]]]', error: /nests deeper than 3/ },
    {
      name: 'block nesting deeper than maxDepth',
      text: 'a:\n  b:\n    c:\n      d: 1\n',
      error: /line 4: the YAML document nests deeper than 3/,
    },
    { name: 'more aliases than maxAliases', text: 'a: &x 1\nb: *x\nc: *x\nd: *x\n', error: /more than 2 aliases/ },
    {
      name: 'a key repeated in one mapping',
      text: 'a: 1\nb: {c: 1, c: 2}\n',
      error: /line 2: the key "c" appears twice/,
    },
  ])('refuses $name', ({ text, error }) => {
    expect(() => valueOf(text, LIMITS)).toThrow(YamlLimitError);
    expect(() => valueOf(text, LIMITS)).toThrow(error);
  });

  it('accepts the same key in different mappings and converts aliases', () => {
    expect(valueOf('a: {k: 1}\nb: {k: 2}\nc: &x [1]\nd: *x\n', LIMITS)).toEqual({
      a: { k: 1 },
      b: { k: 2 },
      c: [1],
      d: [1],
    });
  });

  it('reports a manifest file over the limits as an issue of the file', () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `k${i}: v`).join('\n');
    const out = parseManifestFile('big.yaml', text);
    expect(out.resources).toEqual([]);
    expect(out.issues).toEqual([
      expect.objectContaining({
        file: 'big.yaml',
        field: '(file)',
        message: expect.stringMatching(/more than 20000 nodes/),
      }),
    ]);
  });

  it('reports a repeated key as an issue of its document', () => {
    const out = parseManifestFile('dup.yaml', 'apiVersion: steward.dev/v1alpha1\nkind: Policy\nkind: Policy\n');
    expect(out.issues).toEqual([
      expect.objectContaining({
        documentIndex: 0,
        field: '(yaml)',
        message: expect.stringMatching(/key "kind" appears twice/),
      }),
    ]);
  });
});
