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
    ['postgresql', "SELECT \"Mixed\", Plain, E'\\'x', $q$ A $q$", 'select "Mixed", plain, E\'000\', $q$000$q$'],
    ['postgresql', 'SELECT 1 /* a /* b */ c */ + 1', 'select 1                   + 1'],
    ['mysql', "SELECT 'a\\'b', \"c\", `Id` # x\n", 'SELECT \'0000\', "0", `Id`    \n'],
    ['mysql', 'SELECT a--1, b -- c', 'SELECT a -1, b     '],
    // PostgreSQL continues E'x' into the next quote after a newline, with backslash escapes: the UNION is code
    [
      'postgresql',
      "SELECT E'x'\n'\\'' UNION SELECT s FROM t --' AS a",
      "select E'00\n000' union select s from t         ",
    ],
    ['postgresql', "SELECT E'x' -- c\r\n-- d\n '\\'' , 1", "select E'00000000\n0000\n0000' , 1"],
    ['postgresql', "SELECT 'x'\n'\\' , 1", "select '00\n00' , 1"],
    ['postgresql', "SELECT E'x' /* c */\n'y'", "select E'0'        \n'0'"],
    // MySQL: `--` and DEL is a comment; a NUL ends one
    ['mysql', "SELECT 1 --\x7f'\nUNION SELECT s FROM t -- '", 'SELECT 1     \nUNION SELECT s FROM t     '],
    ['mysql', 'SELECT 1 -- x\0, s # y\0, t', 'SELECT 1     \0, s    \0, t'],
    ['postgresql', 'SELECT 1 -- x\0, s', `select 1 ${' '.repeat(8)}`],
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
    expect(out).toEqual({
      text: "SELECT ?, '$1', ? /* $3 */ FROM t WHERE a = ? -- $1\n",
      values: ['two', 'one', 'two'],
    });
  });
});
