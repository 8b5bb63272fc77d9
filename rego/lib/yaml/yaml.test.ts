import { describe, expect, it } from 'vitest';
import { emitYAML, naturalLess, type YamlNode } from './index.js';

const map = (o: Record<string, YamlNode>): YamlNode => new Map(Object.entries(o));

// Expected output is go-yaml v2's yaml.Marshal of the same data.
describe('emitYAML', () => {
  it('writes block style with sorted keys, unindented sequences and quoted ambiguous strings', () => {
    const doc = map({
      b: 1n,
      a: [true, null, 'x'],
      c: map({ d: 'yes', e: '1.5', f: 'multi\nline' }),
      g: 1.5,
    });
    expect(emitYAML(doc)).toBe(
      'a:\n- true\n- null\n- x\nb: 1\nc:\n  d: "yes"\n  e: "1.5"\n  f: |-\n    multi\n    line\ng: 1.5\n',
    );
  });

  it.each([
    { name: 'a plain scalar', node: 'hello', want: 'hello\n' },
    { name: 'an empty sequence', node: [], want: '[]\n' },
    { name: 'an empty mapping', node: new Map<string, YamlNode>(), want: '{}\n' },
  ])('writes $name as a document', ({ node, want }) => {
    expect(emitYAML(node)).toBe(want);
  });

  it('orders keys naturally: digit runs by value', () => {
    const sorted = ['a10', 'a2', 'b', 'A'].sort((x, y) => (naturalLess(x, y) ? -1 : naturalLess(y, x) ? 1 : 0));
    expect(sorted).toEqual(['A', 'a2', 'a10', 'b']);
  });
});
