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

describe('the parser view', () => {
  it.each([
    ['postgresql', "SELECT 'a\\' , x -- c\nFROM T", "select '00' , x     \nfrom t"],
    ['postgresql', 'SELECT "Mixed", Plain, E\'\\\'x\', $q$ A $q$', 'select "Mixed", plain, E\'000\', $q$000$q$'],
    ['postgresql', 'SELECT 1 /* a /* b */ c */ + 1', 'select 1                   + 1'],
    ['mysql', "SELECT 'a\\'b', \"c\", `Id` # x\n", "SELECT '0000', \"0\", `Id`    \n"],
    ['mysql', 'SELECT a--1, b -- c', 'SELECT a -1, b     '],
  ] as const)('%s: %j reads as %j', (dialect, sql, view) => {
    const out = lexSql(sql, dialect, { view: true });
    expect(out.view).toBe(view);
    expect(out.view.length).toBe(sql.length);
  });
});

describe('toQuestionMarks', () => {
  it('rewrites $n outside strings and comments, reordering and repeating values', () => {
    const sql = "SELECT $2, '$1', $1 /* $3 */ FROM t WHERE a = $2 -- $1\n";
    const out = toQuestionMarks(sql, ['one', 'two'], lexSql(sql, 'mysql'));
    expect(out).toEqual({ text: "SELECT ?, '$1', ? /* $3 */ FROM t WHERE a = ? -- $1\n", values: ['two', 'one', 'two'] });
  });
});
