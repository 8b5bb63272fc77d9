import { describe, expect, it } from 'vitest';
import { BuiltinError, OperandError } from '../../errors.js';
import { RObject, RSet, toJS, type Value } from '../../value.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';
import { register } from './cidr.js';

const registry = new BuiltinRegistry();
register(registry);

let deadlineChecks = 0;
const ctx: BuiltinContext = {
  strict: true,
  nowNs: () => 0n,
  cache: new Map(),
  checkDeadline: () => {
    deadlineChecks++;
  },
  charge: () => {},
};

function call(name: string, ...args: Value[]): unknown {
  return toJS(registry.get(name)!.impl(args, ctx)!);
}

function fails(name: string, ...args: Value[]): Error {
  try {
    registry.get(name)!.impl(args, ctx);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${name} did not fail`);
}

describe('net.cidr_contains', () => {
  it.each([
    { name: 'an IPv4 address in its network', cidr: '10.0.0.0/8', x: '10.1.2.3', want: true },
    { name: 'an IPv4 address outside', cidr: '10.0.0.0/8', x: '11.0.0.1', want: false },
    { name: 'a subnet inside', cidr: '10.0.0.0/8', x: '10.1.0.0/16', want: true },
    { name: 'a subnet that only starts inside', cidr: '10.0.0.0/16', x: '10.0.0.0/8', want: false },
    { name: 'an IPv6 subnet', cidr: 'fd1e:5bfe:8af3:9ddc::/64', x: 'fd1e:5bfe:8af3:9ddc:1111::/72', want: true },
    { name: 'an IPv4-mapped IPv6 address in an IPv4 network', cidr: '10.0.0.0/8', x: '::ffff:10.0.0.1', want: true },
    { name: 'an IPv6 address in an IPv4 network', cidr: '0.0.0.0/0', x: '::1', want: false },
  ])('decides $name', ({ cidr, x, want }) => {
    expect(call('net.cidr_contains', cidr, x)).toBe(want);
  });

  it('rejects operands that are neither an address nor a CIDR', () => {
    expect(fails('net.cidr_contains', '10.0.0.0/8', 'x').message).toBe(
      'not a valid textual representation of an IP address or CIDR: x',
    );
    expect(fails('net.cidr_contains', '10.0.0.0/33', '10.0.0.1').message).toBe('invalid CIDR address: 10.0.0.0/33');
  });

  it('keeps the deprecated net.cidr_overlap as an alias', () => {
    expect(registry.get('net.cidr_overlap')!.decl.deprecated).toBe(true);
    expect(call('net.cidr_overlap', '192.168.0.0/16', '192.168.1.1')).toBe(true);
  });
});

describe('net.cidr_intersects', () => {
  it.each([
    { a: '192.168.0.0/16', b: '192.168.1.0/24', want: true },
    { a: '192.168.1.0/24', b: '192.168.0.0/16', want: true },
    { a: '192.168.0.0/16', b: '10.0.0.0/8', want: false },
    { a: 'fe80::/64', b: 'fe80::1/128', want: true },
  ])('says $a and $b intersect: $want', ({ a, b, want }) => {
    expect(call('net.cidr_intersects', a, b)).toBe(want);
  });
});

describe('net.cidr_is_valid', () => {
  it.each([
    { cidr: '192.168.1.0/24', want: true },
    { cidr: '2002::1234:abcd:ffff:c0a8:101/64', want: true },
    { cidr: '192.168.1.2', want: false },
    { cidr: '', want: false },
    { cidr: '010.0.0.0/8', want: false },
    { cidr: '1.2.3.4/', want: false },
    { cidr: '::1::2/64', want: false },
  ])('says "$cidr" is valid: $want', ({ cidr, want }) => {
    expect(call('net.cidr_is_valid', cidr)).toBe(want);
  });
});

describe('net.cidr_expand', () => {
  it.each([
    { cidr: '192.168.1.1/30', want: ['192.168.1.0', '192.168.1.1', '192.168.1.2', '192.168.1.3'] },
    { cidr: '172.16.100.255/31', want: ['172.16.100.254', '172.16.100.255'] },
    { cidr: '10.0.0.1/32', want: ['10.0.0.1'] },
    { cidr: '2001:db8::/127', want: ['2001:db8::', '2001:db8::1'] },
  ])('expands $cidr', ({ cidr, want }) => {
    expect(call('net.cidr_expand', cidr)).toEqual(want);
  });

  it('refuses networks too large to materialise instead of exhausting memory', () => {
    expect(fails('net.cidr_expand', '10.0.0.0/8')).toBeInstanceOf(BuiltinError);
  });

  it('checks the deadline while expanding', () => {
    deadlineChecks = 0;
    call('net.cidr_expand', '10.0.0.0/16');
    expect(deadlineChecks).toBeGreaterThan(0);
  });
});

describe('net.cidr_contains_matches', () => {
  it.each([
    { name: 'two strings', a: '1.1.1.0/24', b: '1.1.1.1', want: [['1.1.1.0/24', '1.1.1.1']] },
    {
      name: 'arrays, by index',
      a: ['1.1.2.0/24', '1.1.1.0/24'],
      b: ['1.1.1.1', '1.1.2.1'],
      want: [
        [0, 1],
        [1, 0],
      ],
    },
    {
      name: 'objects, by key',
      a: RObject.from([
        ['k1', '1.1.1.1/24'],
        ['k2', ['1.1.1.2/24', 1]],
      ]),
      b: '1.1.1.128',
      want: [
        ['k1', '1.1.1.128'],
        ['k2', '1.1.1.128'],
      ],
    },
    {
      name: 'sets of tuples, by element',
      a: RSet.from([['1.1.1.0/24', 'x']]),
      b: RSet.from(['1.1.1.9']),
      want: [[['1.1.1.0/24', 'x'], '1.1.1.9']],
    },
  ])('matches $name', ({ a, b, want }) => {
    expect(call('net.cidr_contains_matches', a as Value, b as Value)).toEqual(want);
  });

  it('rejects empty tuples with the operand position', () => {
    const e = fails('net.cidr_contains_matches', ['1.1.1.0/24'], ['1.1.1.1', []]);
    expect(e.message).toBe('operand 2: element must be string or non-empty array');
  });

  it('raises a type error for non-string CIDRs inside tuples', () => {
    expect(fails('net.cidr_contains_matches', [[1]], '1.1.1.1')).toBeInstanceOf(OperandError);
  });
});

describe('net.cidr_merge', () => {
  it.each([
    { name: 'adjacent networks', in: ['192.0.128.0/24', '192.0.129.0/24'], want: ['192.0.128.0/23'] },
    { name: 'duplicates', in: ['192.0.128.0/24', '192.0.128.0/24'], want: ['192.0.128.0/24'] },
    { name: 'networks inside others', in: ['192.0.128.0/24', '0.0.0.0/0'], want: ['0.0.0.0/0'] },
    {
      name: 'a mix that leaves a remainder',
      in: ['192.0.2.112/31', '192.0.2.116/31', '192.0.2.118/31'],
      want: ['192.0.2.112/31', '192.0.2.116/30'],
    },
    { name: 'addresses with their classful mask', in: ['192.0.2.112', '192.0.2.116/31'], want: ['192.0.2.0/24'] },
    {
      name: 'IPv4 and IPv6 apart',
      in: ['fe80::/120', '192.0.2.0/24', '192.0.3.0/24'],
      want: ['192.0.2.0/23', 'fe80::/120'],
    },
    {
      name: 'IPv6 networks with host bits',
      in: ['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/64', '2601:600:8a80:207e::1/128'],
      want: ['2601:600:8a80:207e::/64'],
    },
    {
      name: 'ranges that need several blocks',
      in: ['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/32'],
      want: ['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/32'],
    },
    { name: 'nothing', in: [], want: [] },
  ])('merges $name', ({ in: input, want }) => {
    expect(call('net.cidr_merge', input)).toEqual(want);
  });

  it('accepts sets', () => {
    expect(call('net.cidr_merge', RSet.from(['192.0.2.112/30', '192.0.2.116/31', '192.0.2.118/31']))).toEqual([
      '192.0.2.112/29',
    ]);
  });

  it.each([
    { name: 'IPv6 addresses without a prefix', in: ['2601:600::1'], msg: 'IPv6 invalid: needs prefix length' },
    { name: 'garbage', in: ['foo'], msg: 'invalid CIDR address: foo' },
    { name: 'non-strings', in: [1], msg: 'element must be string' },
  ])('rejects $name', ({ in: input, msg }) => {
    expect(fails('net.cidr_merge', input as Value).message).toBe(msg);
  });
});
