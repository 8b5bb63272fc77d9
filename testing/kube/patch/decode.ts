/**
 * Request body decoding for the four patch types, with the apiserver's error texts: JSON bodies fail
 * with Go's encoding/json wording, apply bodies are YAML 1.1 (sigs.k8s.io/yaml over go-yaml v2).
 */
import { parseDocument } from 'yaml';
import { badRequest } from './errors.js';
import { isObject, jsonKind, setOwn, type JsonObject } from './values.js';

/** @default 3 MiB — the apiserver's default MaxRequestBodyBytes. */
export const MAX_PATCH_BYTES = 3 * 1024 * 1024;

/** @default 1000 — deeper bodies are refused before the recursive merge walkers see them. */
export const MAX_PATCH_DEPTH = 1000;

/** Refuses values nested deeper than MAX_PATCH_DEPTH (checked iteratively, so it cannot overflow). */
export function checkDepth(value: unknown): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_PATCH_DEPTH) throw badRequest(`the patch nests deeper than ${MAX_PATCH_DEPTH} levels`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
}

function asText(body: string | Uint8Array): string {
  const text =
    typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (Buffer.byteLength(text) > MAX_PATCH_BYTES) throw badRequest(`the patch body exceeds ${MAX_PATCH_BYTES} bytes`);
  return text;
}

function isRaw(body: unknown): body is string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array;
}

/** Go's json.Unmarshal error for the first problem in `text`. */
export function goJsonError(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!text.trim() || /end of (JSON )?input/i.test(message)) return 'unexpected end of JSON input';
  const m = /position (\d+)/.exec(message) ?? /column (\d+)/.exec(message);
  let at = m ? Number(m[1]) : text.search(/\S/);
  if (!m && /Unexpected token/.test(message)) at = text.search(/\S/);
  const ch = text[at] ?? '';
  return `invalid character '${ch}' looking for beginning of value`;
}

/**
 * Decodes a JSON patch body. `onSyntax` gives the message the patch type reports for unparsable text
 * (a merge patch says "Invalid JSON Patch"; the others repeat the decoder's error).
 */
export function decodeJsonBody(body: unknown, onSyntax?: string): unknown {
  let value: unknown = body;
  if (isRaw(body)) {
    const text = asText(body);
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw badRequest(onSyntax ?? goJsonError(text, err), err);
    }
  }
  checkDepth(value);
  return value;
}

/** YAML 1.1 timestamps decode to Date; sigs.k8s.io/yaml hands them on as RFC 3339 strings. */
function plainJson(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().replace(/\.000Z$/, 'Z');
  if (Array.isArray(v)) return v.map(plainJson);
  if (isObject(v)) {
    for (const k of Object.keys(v)) setOwn(v, k, plainJson(v[k]));
  }
  return v;
}

/** Decodes an apply-patch+yaml body into the applied object. */
export function decodeApplyBody(body: unknown): JsonObject {
  let value: unknown = body;
  if (isRaw(body)) {
    const text = asText(body);
    const doc = parseDocument(text, { version: '1.1', uniqueKeys: true });
    if (doc.errors.length) throw badRequest(`error decoding YAML: ${doc.errors[0]!.message}`, doc.errors[0]);
    value = plainJson(doc.toJS({ maxAliasCount: 100 }) as unknown);
  }
  if (value === null || value === undefined) return {};
  checkDepth(value);
  if (!isObject(value)) {
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(value)} into Go value of type map[string]interface {}`,
    );
  }
  return value;
}
