/**
 * Token handling and the grammar shared by GraphQL queries and schemas (values, types,
 * arguments, directives), following gqlparser/v2's parser package: first error wins, with
 * gqlparser's messages ("Expected Name, found <EOF>", "Unexpected ...") at its token positions.
 */
import type { GArgument, GDirective, GType, GValue } from './ast.js';
import { ValueKind } from './ast.js';
import { Lexer, Tok, kindText, tokenText, type Pos, type Token } from './lexer.js';
import { quote } from '../gofmt/index.js';

/** A positioned parse or validation error (gqlerror.Error). */
export class GqlError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: Pos | null,
  ) {
    super(pos ? `input:${pos.line}:${pos.col}: ${msg}` : `input: ${msg}`);
  }
}

export const LOCATIONS = new Set([
  'QUERY',
  'MUTATION',
  'SUBSCRIPTION',
  'FIELD',
  'FRAGMENT_DEFINITION',
  'FRAGMENT_SPREAD',
  'INLINE_FRAGMENT',
  'VARIABLE_DEFINITION',
  'SCHEMA',
  'SCALAR',
  'OBJECT',
  'FIELD_DEFINITION',
  'ARGUMENT_DEFINITION',
  'INTERFACE',
  'UNION',
  'ENUM',
  'ENUM_VALUE',
  'INPUT_OBJECT',
  'INPUT_FIELD_DEFINITION',
]);

// NB: gqlparser has no nesting limit (Go stacks grow); JS stacks do not, so deeply nested
// selections, values and types are refused with an error instead of overflowing the stack.
const MAX_DEPTH = 500;

export class ParserBase {
  private readonly lexer: Lexer;
  private peeked: Token | undefined;
  private depth = 0;
  prev: Token | undefined;

  constructor(input: string) {
    this.lexer = new Lexer(input);
  }

  peek(): Token {
    return (this.peeked ??= this.lexer.next());
  }

  pos(): Pos {
    const t = this.peek();
    return { line: t.line, col: t.col };
  }

  next(): Token {
    const t = this.peek();
    this.peeked = undefined;
    this.prev = t;
    if (t.err !== undefined) throw new GqlError(t.err, t);
    return t;
  }

  fail(tok: Token, msg: string): never {
    throw new GqlError(msg, tok);
  }

  unexpected(tok: Token = this.peek()): never {
    this.fail(tok, `Unexpected ${tokenText(tok, quote)}`);
  }

  expect(kind: Tok): Token {
    const t = this.peek();
    if (t.kind === kind) return this.next();
    return this.fail(t, `Expected ${kindText(kind)}, found ${kindText(t.kind)}`);
  }

  expectKeyword(value: string): Token {
    const t = this.peek();
    if (t.kind === Tok.Name && t.value === value) return this.next();
    return this.fail(t, `Expected ${quote(value)}, found ${tokenText(t, quote)}`);
  }

  skip(kind: Tok): boolean {
    if (this.peek().kind !== kind) return false;
    this.next();
    return true;
  }

  /** Zero or more items between start and end (the delimiters are optional as a pair). */
  many(start: Tok, end: Tok, item: () => void): void {
    if (!this.skip(start)) return;
    while (this.peek().kind !== end) item();
    this.next();
  }

  /** One or more items between start and end. */
  some(start: Tok, end: Tok, item: () => void): void {
    if (!this.skip(start)) return;
    let called = false;
    while (this.peek().kind !== end) {
      called = true;
      item();
    }
    if (!called) this.fail(this.peek(), `expected at least one definition, found ${kindText(this.peek().kind)}`);
    this.next();
  }

  name(): string {
    return this.expect(Tok.Name).value;
  }

  protected nested<T>(f: () => T): T {
    if (++this.depth > MAX_DEPTH) this.fail(this.peek(), `nesting deeper than ${MAX_DEPTH} levels is not supported`);
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  // ---- values, types, directives (shared) ----

  value(isConst: boolean): GValue {
    return this.nested(() => this.valueAt(isConst));
  }

  private valueAt(isConst: boolean): GValue {
    const t = this.peek();
    const position = this.pos();
    const mk = (Raw: string, Kind: ValueKind, Children: GValue['Children'] = []): GValue => ({
      Raw,
      Children,
      Kind,
      Position: position,
      ExpectedTypeHasDefault: false,
    });
    switch (t.kind) {
      case Tok.BracketL: {
        const children: GValue['Children'] = [];
        this.many(Tok.BracketL, Tok.BracketR, () =>
          children.push({ Name: '', Value: this.value(isConst), Position: null }),
        );
        return mk('', ValueKind.ListValue, children);
      }
      case Tok.BraceL: {
        const children: GValue['Children'] = [];
        this.many(Tok.BraceL, Tok.BraceR, () => {
          const p = this.pos();
          const name = this.name();
          this.expect(Tok.Colon);
          children.push({ Name: name, Value: this.value(isConst), Position: p });
        });
        return mk('', ValueKind.ObjectValue, children);
      }
      case Tok.Dollar:
        if (isConst) this.unexpected();
        return mk(this.variable(), ValueKind.Variable);
      case Tok.Int:
        this.next();
        return mk(t.value, ValueKind.IntValue);
      case Tok.Float:
        this.next();
        return mk(t.value, ValueKind.FloatValue);
      case Tok.String:
        this.next();
        return mk(t.value, ValueKind.StringValue);
      case Tok.BlockString:
        this.next();
        return mk(t.value, ValueKind.BlockValue);
      case Tok.Name: {
        this.next();
        const kind =
          t.value === 'true' || t.value === 'false'
            ? ValueKind.BooleanValue
            : t.value === 'null'
              ? ValueKind.NullValue
              : ValueKind.EnumValue;
        return mk(t.value, kind);
      }
      default:
        return this.unexpected();
    }
  }

  variable(): string {
    this.expect(Tok.Dollar);
    return this.name();
  }

  typeRef(): GType {
    return this.nested(() => this.typeRefAt());
  }

  private typeRefAt(): GType {
    let t: GType;
    if (this.skip(Tok.BracketL)) {
      const position = this.pos();
      const elem = this.typeRef();
      this.expect(Tok.BracketR);
      t = { NamedType: '', Elem: elem, NonNull: false, Position: position };
    } else {
      const position = this.pos();
      t = { NamedType: this.name(), Elem: null, NonNull: false, Position: position };
    }
    if (this.skip(Tok.Bang)) t.NonNull = true;
    return t;
  }

  arguments(isConst: boolean): GArgument[] {
    const args: GArgument[] = [];
    this.many(Tok.ParenL, Tok.ParenR, () => {
      const position = this.pos();
      const name = this.name();
      this.expect(Tok.Colon);
      args.push({ Name: name, Value: this.value(isConst), Position: position });
    });
    return args;
  }

  directives(isConst: boolean): GDirective[] {
    const dirs: GDirective[] = [];
    while (this.peek().kind === Tok.At) {
      this.expect(Tok.At);
      const position = this.pos();
      const name = this.name();
      dirs.push({ Name: name, Arguments: this.arguments(isConst), Position: position, Location: '' });
    }
    return dirs;
  }
}
