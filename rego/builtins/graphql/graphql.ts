/**
 * graphql.* builtins (OPA v1/topdown/graphql.go over gqlparser/v2, here lib/graphql). Queries and schemas may be
 * given as GraphQL text or as the AST objects these builtins return. Parse errors read
 * `<message> in GraphQL string at location <line>:<col>`, as in OPA.
 */
import { BuiltinError, OperandError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { RObject, type Value } from '../../value.js';
import { str } from '../args.js';
import {
  GqlError,
  buildSchema,
  parseQuery,
  parseSchema,
  validateQuery,
  type GQueryDocument,
  type GSchema,
  type GSchemaDocument,
} from '../../lib/graphql/index.js';
import { LRU } from '../../lib/lru/index.js';
import { DecodeError, decodeQuery, decodeSchema } from './decode.js';
import { toRego } from './to-rego.js';
import type { BuiltinContext, BuiltinImpl, BuiltinRegistry } from '../registry.js';

/** OPA's formatGqlParserError over the error text gqlparser produces (`input:L:C: msg`, one per line for lists). */
function formatError(text: string): BuiltinError {
  const parts: string[] = [];
  let rest = text;
  for (let i = 0; i < 3; i++) {
    const k = rest.indexOf(':');
    if (k < 0) break;
    parts.push(rest.slice(0, k));
    rest = rest.slice(k + 1);
  }
  parts.push(rest);
  if (parts.length >= 4 && /^\d+$/.test(parts[1]!) && /^\d+$/.test(parts[2]!)) {
    let msg = parts[3]!.replace(/^ +/, '');
    if (msg.endsWith('.\n')) msg = msg.slice(0, -2);
    return new BuiltinError(`${msg} in GraphQL string at location ${Number(parts[1])}:${Number(parts[2])}`);
  }
  return new BuiltinError(`GraphQL parse error: ${text}`);
}

function fail(e: unknown): never {
  if (e instanceof GqlError) throw formatError(e.message);
  if (e instanceof DecodeError) throw new BuiltinError(e.message);
  throw e;
}

function queryDoc(v: Value, operand: number): GQueryDocument {
  try {
    if (typeof v === 'string') return parseQuery(v);
    if (v instanceof RObject) return decodeQuery(v);
  } catch (e) {
    fail(e);
  }
  // NB: OPA numbers this operand 0 in its message.
  throw operandError(operand, ['string', 'object'], v);
}

function schemaDoc(v: Value, operand: number): GSchemaDocument {
  try {
    if (typeof v === 'string') return parseSchema(v);
    if (v instanceof RObject) return decodeSchema(v);
  } catch (e) {
    fail(e);
  }
  throw operandError(operand, ['string', 'object'], v);
}

interface CompiledSchema {
  readonly ast: Value;
  readonly schema: GSchema | BuiltinError;
}

const schemaCache = new LRU<CompiledSchema>(64);
const MAX_CACHED_SCHEMA = 1 << 20;

/** The schema's AST value (before validation mutates it) and the validated schema (or its error). */
function compileSchema(v: Value, operand: number): CompiledSchema {
  const key = typeof v === 'string' ? v : undefined;
  const hit = key !== undefined ? schemaCache.get(key) : undefined;
  if (hit !== undefined) return hit;
  const doc = schemaDoc(v, operand);
  const ast = toRego(doc) ?? new RObject();
  let schema: GSchema | BuiltinError;
  try {
    schema = buildSchema(doc);
  } catch (e) {
    if (!(e instanceof GqlError)) throw e;
    schema = new BuiltinError(`Error in gqlparser SchemaDocument to Schema conversion: ${e.message}`);
  }
  const out = { ast, schema };
  if (key !== undefined && key.length <= MAX_CACHED_SCHEMA) schemaCache.set(key, out);
  return out;
}

function validated(ctx: BuiltinContext, args: readonly Value[]): [Value, Value] {
  const doc = queryDoc(args[0]!, 0);
  const compiled = compileSchema(args[1]!, 1);
  if (compiled.schema instanceof BuiltinError) throw new BuiltinError(compiled.schema.message);
  // The query's AST value is taken before validation marks variables as used.
  const queryAST = toRego(doc) ?? new RObject();
  const errors = validateQuery(compiled.schema, doc, () => ctx.checkDeadline());
  if (errors.length > 0) throw formatError(errors.map((e) => `${e.message}\n`).join(''));
  return [queryAST, compiled.ast];
}

/** Any parse, decode or validation failure (or a wrong operand type) answers the fallback. */
function quietly<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof BuiltinError || e instanceof OperandError) return fallback;
    throw e;
  }
}

const impls: Record<string, BuiltinImpl> = {
  'graphql.parse_query': (args) => toRego(queryDocFromString(str(args, 0))) ?? new RObject(),
  'graphql.parse_schema': (args) => compileSchemaAST(str(args, 0)),
  'graphql.parse': (args, ctx) => validated(ctx, args),
  'graphql.parse_and_verify': (args, ctx) =>
    quietly(() => [true, ...validated(ctx, args)], [false, new RObject(), new RObject()]),
  'graphql.is_valid': (args, ctx) =>
    quietly(() => {
      validated(ctx, args);
      return true;
    }, false),
  'graphql.schema_is_valid': (args) =>
    quietly(() => !(compileSchema(args[0]!, 0).schema instanceof BuiltinError), false),
};

function queryDocFromString(s: string): GQueryDocument {
  try {
    return parseQuery(s);
  } catch (e) {
    return fail(e);
  }
}

function compileSchemaAST(s: string): Value {
  try {
    return toRego(parseSchema(s)) ?? new RObject();
  } catch (e) {
    return fail(e);
  }
}

const queryOrAST = T.anyOf(T.string, T.object(T.any, T.any));

export function register(r: BuiltinRegistry): void {
  r.add(
    { name: 'graphql.parse_query', args: [T.string], result: T.object(T.any, T.any) },
    impls['graphql.parse_query']!,
  );
  r.add(
    { name: 'graphql.parse_schema', args: [T.string], result: T.object(T.any, T.any) },
    impls['graphql.parse_schema']!,
  );
  r.add(
    {
      name: 'graphql.parse',
      args: [queryOrAST, queryOrAST],
      result: T.tuple(T.object(T.any, T.any), T.object(T.any, T.any)),
    },
    impls['graphql.parse']!,
  );
  r.add(
    {
      name: 'graphql.parse_and_verify',
      args: [queryOrAST, queryOrAST],
      result: T.tuple(T.boolean, T.object(T.any, T.any), T.object(T.any, T.any)),
    },
    impls['graphql.parse_and_verify']!,
  );
  r.add({ name: 'graphql.is_valid', args: [queryOrAST, queryOrAST], result: T.boolean }, impls['graphql.is_valid']!);
  r.add({ name: 'graphql.schema_is_valid', args: [queryOrAST], result: T.boolean }, impls['graphql.schema_is_valid']!);
}
