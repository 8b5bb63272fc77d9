/**
 * Strategic merge patch failures and how the apiserver reports them (interpretStrategicMergePatchError):
 * malformed directives are 400, lists of lists and retainKeys mismatches the generic 422, anything else an
 * unconverted error, i.e. 500 with the raw text.
 */
import { PatchError, badRequest, internalFailure, rejectedRequest } from './errors.js';
import { isObject } from './values.js';

export type SmpFailureKind = 'bad' | 'invalid' | 'internal';

export class SmpFailure extends Error {
  constructor(
    readonly kind: SmpFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'SmpFailure';
  }
}

export const BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

export function toPatchError(err: SmpFailure): PatchError {
  if (err.kind === 'bad') return badRequest(err.message);
  if (err.kind === 'invalid') return rejectedRequest(err.message);
  return internalFailure(err.message);
}

/** reflect.TypeOf(v).String() for a value decoded by apimachinery's JSON (integers as int64). */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}
