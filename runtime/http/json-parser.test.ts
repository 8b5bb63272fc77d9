import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-parser.js';

describe('jsonDepthExceeds', () => {
  it.each([
    { name: 'a flat object is within any depth', text: '{"a":1,"b":[1,2]}', max: 2, exceeds: false },
    { name: 'three levels exceed two', text: '{"a":{"b":[1]}}', max: 2, exceeds: true },
    { name: 'three levels are within three', text: '{"a":{"b":[1]}}', max: 3, exceeds: false },
    { name: 'brackets inside strings do not count', text: '{"a":"[[[[{{{{"}', max: 1, exceeds: false },
    { name: 'an escaped quote does not end the string', text: '{"a":"x\\"[[[[["}', max: 1, exceeds: false },
    {
      name: 'an escaped backslash before the closing quote ends it',
      text: '{"a":"x\\\\","b":[[1]]}',
      max: 2,
      exceeds: true,
    },
    { name: 'siblings do not add up', text: '[[1],[2],[3],[4]]', max: 2, exceeds: false },
    { name: '10,000 levels exceed 64', text: '['.repeat(10_000) + ']'.repeat(10_000), max: 64, exceeds: true },
    { name: 'unclosed text is judged on nesting only', text: '[[[', max: 2, exceeds: true },
  ])('$name', ({ text, max, exceeds }) => {
    expect(jsonDepthExceeds(text, max)).toBe(exceeds);
  });
});
