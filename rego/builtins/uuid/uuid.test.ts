import { describe, expect, it } from 'vitest';
import { context, run, v } from '../test/testkit-data.js';

const V4 = /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/;

describe('uuid', () => {
  it('uuid.rfc4122 makes version 4 UUIDs', () => {
    expect(run('uuid.rfc4122', [v('k')])).toMatch(V4);
  });

  it('uuid.rfc4122 repeats itself for the same key within one evaluation only', () => {
    const ctx = context();
    const a = run('uuid.rfc4122', [v('k')], ctx);
    expect(run('uuid.rfc4122', [v('k')], ctx)).toBe(a);
    expect(run('uuid.rfc4122', [v('other')], ctx)).not.toBe(a);
    expect(run('uuid.rfc4122', [v('k')])).not.toBe(a);
  });

  it.each([
    { name: 'a version 4 UUID', s: '00000000-0000-4000-8000-000000000000', want: '{"variant":"RFC4122","version":4}' },
    {
      name: 'a version 2 UUID with its DCE fields',
      s: '000003e8-48b9-21ee-b200-325096b39f47',
      want: '{"clocksequence":12800,"domain":"Person","id":1000,"macvariables":"local:unicast","nodeid":"32-50-96-b3-9f-47","time":1693566990121469600,"variant":"RFC4122","version":2}',
    },
    {
      name: 'the urn form',
      s: 'URN:UUID:00000000-0000-3000-c000-000000000000',
      want: '{"variant":"Microsoft","version":3}',
    },
    { name: 'the braced form', s: '{00000000-0000-5000-e000-000000000000}', want: '{"variant":"Future","version":5}' },
    { name: 'bare hex', s: '00000000000040000000000000000000', want: '{"variant":"Reserved","version":4}' },
    { name: 'a too-short string', s: '123', want: 'undefined' },
    { name: 'misplaced dashes', s: '0000000-00000-4000-8000-000000000000', want: 'undefined' },
    { name: 'non-hex digits', s: '0000000g-0000-4000-8000-000000000000', want: 'undefined' },
  ])('uuid.parse reads $name', ({ s, want }) => {
    expect(run('uuid.parse', [v(s)])).toBe(want);
  });

  it('uuid.parse wraps a pre-1970 nanosecond time around int64 as Go does', () => {
    expect(run('uuid.parse', [v('00000000-0000-1000-8000-010203040506')])).toBe(
      '{"clocksequence":0,"macvariables":"global:multicast","nodeid":"01-02-03-04-05-06","time":6227451273709551616,"variant":"RFC4122","version":1}',
    );
  });
});
