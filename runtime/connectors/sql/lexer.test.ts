import { describe, expect, it } from 'vitest';
import { lexSql, toQuestionMarks } from './lexer.js';

describe('lexSql', () => {
  it.each([
    ['postgresql', "SELECT 'a\\'; x", [11]],
    ['mysql', "SELECT 'a\\'; x'", []],
    ['postgresql', "SELECT E'a\\'; x'", []],
    ['postgresql', 'SELECT $$;$$, $t$;$t$', []],
    ['postgresql', 'SELECT 1 /* /* ; */ ; */', []],
    ['mysql', 'SELECT 1 /* /* */ ; */', [18]],
    ['mysql', 'SELECT 1 # ;\n', []],
    ['mysql', 'SELECT 1 --;', [11]],
    ['postgresql', 'SELECT 1 --;', []],
    ['mysql', 'SELECT `a;b`', []],
    ['postgresql', 'SELECT "a;""b"', []],
  ] as const)('%s: %s separators at %j', (dialect, sql, separators) => {
    expect(lexSql(sql, dialect).separators).toEqual(separators);
  });

  it('flags executable comments and unterminated input', () => {
    expect(lexSql('SELECT 1 /*!50000 x */', 'mysql').executableComment).toBe(true);
    expect(lexSql('SELECT 1 /*M! x */', 'mysql').executableComment).toBe(true);
    expect(lexSql('SELECT 1 /*! x */', 'postgresql').executableComment).toBe(false);
    expect(lexSql("SELECT 'x", 'postgresql').unterminated).toBe(true);
    expect(lexSql('SELECT $q$ x', 'postgresql').unterminated).toBe(true);
  });
});

describe('toQuestionMarks', () => {
  it('rewrites $n outside strings and comments, reordering and repeating values', () => {
    const sql = "SELECT $2, '$1', $1 /* $3 */ FROM t WHERE a = $2 -- $1\n";
    const out = toQuestionMarks(sql, ['one', 'two'], lexSql(sql, 'mysql'));
    expect(out).toEqual({ text: "SELECT ?, '$1', ? /* $3 */ FROM t WHERE a = ? -- $1\n", values: ['two', 'one', 'two'] });
  });
});
