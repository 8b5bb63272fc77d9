import { describe, expect, it } from 'vitest';
import { NumLit, fromJS, toJSONText } from '../../value.js';
import { GoJSONError, marshalJSON, marshalJSONIndent, quoteJSON, unmarshalJSON, validJSON } from './index.js';

// Expected texts are Go's encoding/json (and OPA's util.UnmarshalJSON) on the same data.
describe('marshal', () => {
  it('sorts keys, turns sets into arrays and escapes HTML', () => {
    expect(marshalJSON(fromJS({ b: [1, 'x<y'], a: new Set([2, 1]), c: null }))).toBe(
      '{"a":[1,2],"b":[1,"x\\u003cy"],"c":null}',
    );
    expect(marshalJSON(fromJS(new Map<unknown, unknown>([[1, 'a']])))).toBe('{"1":"a"}');
  });

  it('indents as MarshalIndent does and quotes line separators', () => {
    expect(marshalJSONIndent(fromJS({ a: [1] }), '', '  ')).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(quoteJSON('<\u2028&')).toBe('"\\u003c\\u2028\\u0026"');
    expect(quoteJSON('<', false)).toBe('"<"');
  });
});

describe('unmarshal', () => {
  it('keeps number text exact', () => {
    expect(toJSONText(unmarshalJSON('{"a": 1.0, "b": [true]}'))).toBe('{"a":1.0,"b":[true]}');
    expect(unmarshalJSON('1.0')).toBeInstanceOf(NumLit);
    expect(unmarshalJSON('12345678901234567890')).toBe(12345678901234567890n);
  });

  it.each([
    { text: '', message: 'EOF' },
    { text: '1 2', message: "error: invalid character '2' after top-level value" },
    { text: '{"a":', message: 'unexpected EOF' },
  ])('rejects $text with Go’s message', ({ text, message }) => {
    expect(() => unmarshalJSON(text)).toThrow(new GoJSONError(message));
    expect(validJSON(text)).toBe(false);
  });

  it('accepts a trailing null, as OPA’s decoder does, where json.Valid does not', () => {
    expect(unmarshalJSON('[1] null')).toEqual([1]);
    expect(validJSON('[1] null')).toBe(false);
  });
});
