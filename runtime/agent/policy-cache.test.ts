import { describe, expect, it } from 'vitest';
import { decide } from '../../rego/index.js';
import { compilePolicy, PolicyCache } from './policy-cache.js';

const policy = (n: number) => `package p${n}\n\nallow := true\n`;

describe('PolicyCache', () => {
  it('compiles a text once and serves it from the cache after', () => {
    const cache = new PolicyCache(4);
    const a = cache.get(policy(1));
    expect(cache.get(policy(1))).toBe(a);
    expect(cache.compilations).toBe(1);
  });

  it('evicts the least recently used text when full', () => {
    const cache = new PolicyCache(2);
    cache.get(policy(1));
    cache.get(policy(2));
    cache.get(policy(1)); // 1 is now the most recently used
    cache.get(policy(3)); // evicts 2
    expect(cache.size).toBe(2);
    cache.get(policy(1));
    expect(cache.compilations).toBe(3);
    cache.get(policy(2));
    expect(cache.compilations).toBe(4);
  });

  it('caches a compile failure with its position', () => {
    const cache = new PolicyCache(2);
    const bad = 'package q\n\nallow if { x }\n';
    expect(cache.get(bad)).toEqual({
      ok: false,
      message: 'query.rego:3:12: rego_unsafe_var_error: var x is unsafe',
      line: 3,
      column: 12,
    });
    cache.get(bad);
    expect(cache.compilations).toBe(1);
  });

  it.each([
    ['a query with no allowed word', 'book a cruise', true],
    ['a query with an allowed word', 'book a flight', false],
  ])('compiles a policy importing future.keywords.not and decides %s', (_name, query, blocked) => {
    const text = [
      'package travel',
      'import future.keywords.not',
      'deny contains "no allowed word" if not {',
      '  some w in split(input.query, " ")',
      '  w in {"flight", "hotel"}',
      '}',
    ].join('\n');
    const entry = new PolicyCache(2).get(text);
    if (!entry.ok) throw new Error(entry.message);
    const decision = decide(entry.prepared, entry.pkg, { query, surface: 'parallel', context: {} });
    expect(decision).toMatchObject({ blocked, deny: blocked ? ['no allowed word'] : [] });
  });

  it('names the package whose decision gates the item', () => {
    expect(compilePolicy('package travel.rules\n\ndeny contains "x" if false\n')).toMatchObject({
      ok: true,
      pkg: 'travel.rules',
    });
  });
});
