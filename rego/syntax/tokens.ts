/** Rego's tokens and keywords, as the scanner (lexer.ts) produces them and the parser reads them. */

export type Tok =
  | 'EOF'
  | 'ILLEGAL'
  | 'WS'
  | 'COMMENT'
  | 'IDENT'
  | 'NUMBER'
  | 'STRING'
  | 'TPL_PART' // `$"abc{` — template part ending at an expression
  | 'TPL_END' // `$"abc"` or `abc"` after an expression
  | 'RAW_TPL_PART'
  | 'RAW_TPL_END'
  | '['
  | ']'
  | '{'
  | '}'
  | '('
  | ')'
  | ','
  | ':'
  | ';'
  | '.'
  | ':='
  | '='
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '&'
  | '|'
  // keywords
  | 'package'
  | 'import'
  | 'as'
  | 'default'
  | 'else'
  | 'not'
  | 'some'
  | 'with'
  | 'null'
  | 'true'
  | 'false'
  | 'if'
  | 'contains'
  | 'in'
  | 'every'
  // experimental (OPA's logic_operators): only with `import future.keywords.and|or`
  | 'and'
  | 'or';

/** Keywords in every version. */
export const BASE_KEYWORDS: readonly Tok[] = [
  'package',
  'import',
  'as',
  'default',
  'else',
  'not',
  'some',
  'with',
  'null',
  'true',
  'false',
];
/** Keywords that v0 modules get only through `import future.keywords…` or `import rego.v1`. */
export const FUTURE_KEYWORDS: readonly Tok[] = ['if', 'contains', 'in', 'every'];
/** Experimental keywords (OPA's `and`/`or` logic operators, and block negation via `not`). */
export const EXPERIMENTAL_KEYWORDS: readonly string[] = ['and', 'not', 'or'];

export interface Token {
  tok: Tok;
  lit: string;
  offset: number;
  end: number;
  row: number;
  col: number;
}

export interface ScanError {
  message: string;
  offset: number;
  row: number;
  col: number;
}
