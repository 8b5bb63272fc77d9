/**
 * JSON Patch (RFC 6902) as the apiserver runs it (evanphx/json-patch v4): add/remove/replace/move/copy/test,
 * `-` to append, `~1`/`~0` escapes, negative array indices counted from the end, `test` against a missing
 * member passes when the expected value is null. Operation failures become the apiserver's generic 422; the
 * engine's own text (kept as the error's `cause`) never reaches the wire, exactly as with the real server.
 */
import { badRequest, entityTooLarge, rejectedRequest } from './errors.js';
import { deepClone, deepEqual, hasOwn, isObject, jsonKind, setOwn, type JsonObject } from './values.js';

/** @default 10000 — the apiserver's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

type Container = JsonObject | unknown[];

class OpFailure extends Error {}

/** Validates the decoded body the way DecodePatch does (400 on a body that is not a list of objects). */
export function decodeJsonPatch(body: unknown): JsonObject[] {
  if (!Array.isArray(body)) {
    throw badRequest(`json: cannot unmarshal ${jsonKind(body)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of body) {
    if (!isObject(op))
      throw badRequest(`json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
  }
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw entityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`,
    );
  }
  return body as JsonObject[];
}

/** Applies the operations in order to a copy of `doc`; the first failing operation aborts the patch. */
export function applyJsonPatch(doc: JsonObject, body: unknown): unknown {
  const ops = decodeJsonPatch(body);
  // NB: a `replace` of the whole document may swap the root, so the root lives in a one-slot holder.
  const root: { doc: unknown } = { doc: deepClone(doc) };
  for (const op of ops) {
    try {
      applyOp(root, op);
    } catch (err) {
      if (err instanceof OpFailure) throw rejectedRequest(err.message);
      throw err;
    }
  }
  return root.doc;
}

function applyOp(root: { doc: unknown }, op: JsonObject): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add':
      return add(root, op);
    case 'remove':
      return remove(root, op);
    case 'replace':
      return replace(root, op);
    case 'move':
      return move(root, op);
    case 'copy':
      return copy(root, op);
    case 'test':
      return test(root, op);
    default:
      throw new OpFailure(`Unexpected kind: ${kind}`);
  }
}

function pointer(op: JsonObject, field: 'path' | 'from', what: string): string {
  const v = op[field];
  if (typeof v !== 'string') throw new OpFailure(`${what}: missing value`);
  return v;
}

/** The operation's value; an absent `value` member means null, as evanphx decodes it. */
function valueOf(op: JsonObject): unknown {
  return hasOwn(op, 'value') ? deepClone(op.value) : null;
}

function decodeKey(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Resolves every token but the last, as findObject does: the container of the target and the target's key.
 * NB: like evanphx, the text before the first `/` is ignored, so `a/b` addresses `/b`.
 */
function findParent(doc: unknown, path: string): { con: Container; key: string } | undefined {
  const parts = path.split('/');
  if (parts.length < 2) return undefined;
  let cur: unknown = doc;
  for (const raw of parts.slice(1, -1)) {
    const next = getChild(cur, decodeKey(raw));
    if (next === undefined || (!isObject(next) && !Array.isArray(next))) return undefined;
    cur = next;
  }
  if (!isObject(cur) && !Array.isArray(cur)) return undefined;
  return { con: cur, key: decodeKey(parts[parts.length - 1]!) };
}

function getChild(con: unknown, key: string): unknown {
  if (Array.isArray(con)) {
    const i = parseIndex(key);
    if (i === undefined || i < -con.length || i >= con.length) return undefined;
    return con[i < 0 ? i + con.length : i];
  }
  if (isObject(con) && hasOwn(con, key)) return con[key];
  return undefined;
}

function parseIndex(key: string): number | undefined {
  if (!/^-?\d+$/.test(key)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) ? n : undefined;
}

function arrayIndex(con: unknown[], key: string, forInsert: boolean): number {
  const i = parseIndex(key);
  if (i === undefined) throw new OpFailure(`value was not a proper array index: '${key}'`);
  const size = forInsert ? con.length + 1 : con.length;
  if (i >= size || i < -size) throw new OpFailure(`Unable to access invalid index: ${i}: invalid index referenced`);
  return i < 0 ? i + size : i;
}

/** Reads the target; throws the engine's "missing" errors when it does not exist. */
function get(con: Container, key: string, path: string): unknown {
  if (Array.isArray(con)) return con[arrayIndex(con, key, false)];
  if (!hasOwn(con, key)) throw new OpFailure(`unable to get nonexistent key: ${key}: missing value (path ${path})`);
  return con[key];
}

function insert(con: Container, key: string, value: unknown): void {
  if (Array.isArray(con)) {
    if (key === '-') con.push(value);
    else con.splice(arrayIndex(con, key, true), 0, value);
    return;
  }
  setOwn(con, key, value);
}

function del(con: Container, key: string): void {
  if (Array.isArray(con)) {
    con.splice(arrayIndex(con, key, false), 1);
    return;
  }
  if (!hasOwn(con, key)) throw new OpFailure(`Unable to remove nonexistent key: ${key}: missing value`);
  delete con[key];
}

function add(root: { doc: unknown }, op: JsonObject): void {
  const path = pointer(op, 'path', 'add operation failed to decode path');
  const at = findParent(root.doc, path);
  if (!at) throw new OpFailure(`add operation does not apply: doc is missing path: "${path}": missing value`);
  insert(at.con, at.key, valueOf(op));
}

function remove(root: { doc: unknown }, op: JsonObject): void {
  const path = pointer(op, 'path', 'remove operation failed to decode path');
  const at = findParent(root.doc, path);
  if (!at) throw new OpFailure(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  del(at.con, at.key);
}

function replace(root: { doc: unknown }, op: JsonObject): void {
  const path = pointer(op, 'path', 'replace operation failed to decode path');
  if (path === '') {
    const v = valueOf(op);
    if (!isObject(v) && !Array.isArray(v)) throw new OpFailure('replace operation value must be object or array');
    root.doc = v;
    return;
  }
  const at = findParent(root.doc, path);
  if (!at) throw new OpFailure(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  get(at.con, at.key, path);
  if (Array.isArray(at.con)) at.con[arrayIndex(at.con, at.key, false)] = valueOf(op);
  else setOwn(at.con, at.key, valueOf(op));
}

function move(root: { doc: unknown }, op: JsonObject): void {
  const from = pointer(op, 'from', 'move operation failed to decode from');
  const src = findParent(root.doc, from);
  if (!src) throw new OpFailure(`move operation does not apply: doc is missing from path: ${from}: missing value`);
  const val = get(src.con, src.key, from);
  del(src.con, src.key);
  const path = pointer(op, 'path', 'move operation failed to decode path');
  const dst = findParent(root.doc, path);
  if (!dst)
    throw new OpFailure(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
  insert(dst.con, dst.key, val);
}

function copy(root: { doc: unknown }, op: JsonObject): void {
  const from = pointer(op, 'from', 'copy operation failed to decode from');
  const src = findParent(root.doc, from);
  if (!src) throw new OpFailure(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
  const val = deepClone(get(src.con, src.key, from));
  const path = pointer(op, 'path', 'copy operation failed to decode path');
  const dst = findParent(root.doc, path);
  if (!dst)
    throw new OpFailure(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
  insert(dst.con, dst.key, val);
}

function test(root: { doc: unknown }, op: JsonObject): void {
  const path = pointer(op, 'path', 'test operation failed to decode path');
  const expected = valueOf(op);
  if (path === '') {
    if (!deepEqual(root.doc, expected)) throw new OpFailure(`testing value ${path} failed: test failed`);
    return;
  }
  const at = findParent(root.doc, path);
  if (!at) throw new OpFailure(`test operation does not apply: is missing path: ${path}: missing value`);
  let actual: unknown = null;
  if (Array.isArray(at.con)) actual = at.con[arrayIndex(at.con, at.key, false)];
  else if (hasOwn(at.con, at.key)) actual = at.con[at.key];
  // NB: a missing member compares as null, so `{"op":"test","value":null}` passes for an absent key.
  if (!deepEqual(actual ?? null, expected)) throw new OpFailure(`testing value ${path} failed: test failed`);
}
