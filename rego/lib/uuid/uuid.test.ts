import { describe, expect, it } from 'vitest';
import { newUUIDv4, parseUUID, uuidFields } from './index.js';

describe('uuid', () => {
  it('generates version 4, RFC 4122 variant UUIDs', () => {
    const id = newUUIDv4();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFields(parseUUID(id)!)).toEqual({ version: 4, variant: 'RFC4122' });
  });

  it.each([
    { form: 'plain', text: '00000000-0000-0000-0000-000000000001' },
    { form: 'braced', text: '{00000000-0000-0000-0000-000000000001}' },
    { form: 'URN', text: 'URN:uuid:00000000-0000-0000-0000-000000000001' },
    { form: 'bare hex', text: '00000000000000000000000000000001' },
  ])('parses the $form form', ({ text }) => {
    expect(parseUUID(text)?.[15]).toBe(1);
  });

  it('rejects other lengths and misplaced dashes', () => {
    expect(parseUUID('0000000-00000-0000-0000-000000000001')).toBeUndefined();
    expect(parseUUID('1234')).toBeUndefined();
  });

  it('reads the time and node of a version 1 UUID', () => {
    const f = uuidFields(parseUUID('4ec2b5e8-2d1e-11ee-be56-0242ac120002')!);
    expect(f).toMatchObject({
      version: 1,
      variant: 'RFC4122',
      nodeid: '02-42-ac-12-00-02',
      macvariables: 'local:unicast',
    });
    expect(typeof f.time).toBe('bigint');
  });
});
