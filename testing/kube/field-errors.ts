/**
 * Field errors of a validation (k8s.io/apimachinery/pkg/util/validation/field), rendered word for word as
 * the real server renders them: `spec.size: Unsupported value: "huge": supported values: "small"`.
 */
/** One field error of a validation; `format.ts` renders its message as the real server does. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value; `OMIT` for messages that never show it. */
  value?: unknown;
  detail?: string;
}

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

export const OMIT = Symbol('omit-value');

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Go's `%q` for the strings we print (JSON escaping is the same for the printable range). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** A value already rendered in Go syntax (`v1.LabelSelector{...}`, `[]string(nil)`). */
export class GoRepr {
  constructor(readonly text: string) {}
}

/** Renders a bad value the way field.Error.ErrorBody does for values decoded from JSON. */
function renderValue(v: unknown): string {
  if (v instanceof GoRepr) return v.text;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  // NB: Go prints maps and slices with %#v; the exact text for composite values is not something clients parse.
  if (Array.isArray(v)) return `[]interface {}{${v.map(renderValue).join(', ')}}`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${goQuote(k)}:${renderValue(x)}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return String(v);
}

export function fieldErrorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  const omit =
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'InternalError' ||
    e.value === OMIT;
  if (!omit) s += `: ${renderValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, value: '', detail }),
  invalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    value,
    detail,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field,
    value,
    detail,
  }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, value: '', detail }),
  duplicate: (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value }),
  notSupported: (field: string, value: unknown, valid: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    value,
    detail: valid.length ? `supported values: ${valid.map(goQuote).join(', ')}` : '',
  }),
  tooLong: (field: string, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    value: OMIT,
    detail: max >= 0 ? `may not be longer than ${max}` : 'value is too long',
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    value: actual >= 0 ? actual : OMIT,
    detail: max >= 0 ? `must have at most ${max} items` : 'has too many items',
  }),
  immutable: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    value,
    detail: 'field is immutable',
  }),
};
