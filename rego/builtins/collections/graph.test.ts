import { describe, expect, it } from 'vitest';
import { run, set, v } from '../test/testkit-data.js';

const graph = { a: ['b', 'c'], b: ['d'], c: set('a'), d: [] };

const cases: { name: string; fn: string; args: unknown[]; want: string }[] = [
  {
    name: 'graph.reachable follows edges from the start',
    fn: 'graph.reachable',
    args: [graph, ['b']],
    want: '["b","d"]',
  },
  {
    name: 'graph.reachable survives cycles',
    fn: 'graph.reachable',
    args: [graph, set('a')],
    want: '["a","b","c","d"]',
  },
  {
    name: 'graph.reachable leaves out vertices missing from the graph',
    fn: 'graph.reachable',
    args: [{ a: ['x'] }, ['a', 'z']],
    want: '["a"]',
  },
  {
    name: 'graph.reachable rejects a scalar start',
    fn: 'graph.reachable',
    args: [graph, 'a'],
    want: 'type: operand 2 must be {array, set} but got string',
  },
  {
    name: 'graph.reachable rejects a non-object graph',
    fn: 'graph.reachable',
    args: [[], ['a']],
    want: 'type: operand 1 must be object but got array',
  },
  {
    name: 'graph.reachable_paths stops paths at leaves and before cycles',
    fn: 'graph.reachable_paths',
    args: [graph, ['a']],
    want: '[["a","b","d"],["a","c"]]',
  },
  {
    name: 'graph.reachable_paths ends a path before a missing vertex',
    fn: 'graph.reachable_paths',
    args: [{ a: ['x'] }, ['a']],
    want: '[["a"]]',
  },
  {
    name: 'graph.reachable_paths of a leaf is the leaf',
    fn: 'graph.reachable_paths',
    args: [{ a: [] }, ['a']],
    want: '[["a"]]',
  },
];

describe('graph', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });
});
