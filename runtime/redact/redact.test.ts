import { describe, expect, it } from 'vitest';
import { readCorpus } from '../policy/pack/corpus.js';
import { redactText, redactValue, type RedactionCounts } from './redact.js';
import { HOSTILE_MEGABYTES } from './test/hostile.js';

const redact = (text: string) => {
  const counts: RedactionCounts = {};
  return { text: redactText(text, counts), counts };
};

describe('redactText (mirrors the built-in pii and secrets pack)', () => {
  it.each([
    ['US SSN', 'ssn 123-45-6789 on file', 'ssn [REDACTED:us_ssn] on file', 'us_ssn'],
    ['card with Luhn', 'card 4111-1111-1111-1111', 'card [REDACTED:payment_card]', 'payment_card'],
    ['IBAN with mod-97', 'pay to GB82 WEST 1234 5698 7654 32 today', 'pay to [REDACTED:iban] today', 'iban'],
    ['personal email', 'write to jane.doe@corp.io', 'write to [REDACTED:email]', 'email'],
    ['international phone', 'call +44 20 7946 0958', 'call [REDACTED:phone]', 'phone'],
    ['AWS key id', 'key AKIAIOSFODNN7ABCDEFG here', 'key [REDACTED:aws_access_key] here', 'aws_access_key'],
    ['GitHub token', `token ghp_${'a'.repeat(36)}`, 'token [REDACTED:github_token]', 'github_token'],
    [
      'credentials in a URL',
      'dsn postgres://app:hunter22@db:5432/x',
      'dsn [REDACTED:url_credentials]',
      'url_credentials',
    ],
    [
      'PEM private key',
      'k: -----BEGIN RSA PRIVATE KEY-----\nMIIEow' + 'A'.repeat(60) + '\n-----END RSA PRIVATE KEY----- done',
      'k: [REDACTED:private_key] done',
      'private_key',
    ],
    [
      'passport with its word',
      'passport no: 548193207, issued 2019',
      'passport no: [REDACTED:passport], issued 2019',
      'passport',
    ],
    ['UK NINO', 'NINO: AB 12 34 56 D', 'NINO: [REDACTED:uk_nino]', 'uk_nino'],
    ['password assignment', 'DB_PASSWORD=s3cr3t-Pa55w0rd!', 'DB_PASSWORD=[REDACTED:password]', 'password'],
    ['truncated PEM key', '-----BEGIN PRIVATE KEY----- ' + 'A'.repeat(64), '[REDACTED:private_key]', 'private_key'],
    [
      'short PEM key',
      'k: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB7w\n-----END EC PRIVATE KEY----- done',
      'k: [REDACTED:private_key] done',
      'private_key',
    ],
    [
      'empty PEM block',
      'is this valid?\n-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----',
      'is this valid?\n[REDACTED:private_key]',
      'private_key',
    ],
    [
      'footerless PEM key, every line',
      '-----BEGIN RSA PRIVATE KEY-----\n' + 'A'.repeat(64) + '\n' + 'B'.repeat(64) + '\nZg==\n\nthanks',
      '[REDACTED:private_key]\n\nthanks',
      'private_key',
    ],
    ['JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig', 'jwt [REDACTED:jwt]', 'jwt'],
    ['US SSN with zero-width spaces', 'ssn 123\u200b-45\u200b-6789 on file', 'ssn [REDACTED:us_ssn] on file', 'us_ssn'],
    ['US SSN in Arabic-Indic digits and en dashes', 'SSN ١٢٣–٤٥–٦٧٨٩.', 'SSN [REDACTED:us_ssn].', 'us_ssn'],
    ['dotted US SSN', 'SSN 123.45.6789 ok', 'SSN [REDACTED:us_ssn] ok', 'us_ssn'],
    [
      'card in full-width digits',
      'card ４１１１ １１１１ １１１１ １１１１',
      'card [REDACTED:payment_card]',
      'payment_card',
    ],
    [
      'card one digit at a time',
      'card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 ok',
      'card [REDACTED:payment_card] ok',
      'payment_card',
    ],
    [
      'AWS key id with a Cyrillic A',
      'key \u0410KIAIOSFODNN7ABCDEFG here',
      'key [REDACTED:aws_access_key] here',
      'aws_access_key',
    ],
  ])('%s', (_name, input, output, kind) => {
    const r = redact(input);
    expect(r.text).toBe(output);
    expect(r.counts).toEqual({ [kind]: 1 });
  });

  it.each([
    ['a card number failing Luhn', 'order 4111-1111-1111-1112'],
    ['an invalid SSN area', 'ref 000-12-3456'],
    ['an IBAN with a bad checksum', 'GB82 WEST 1234 5698 7654 33'],
    ['a role mailbox', 'mail support@corp.io'],
    ['a documentation domain', 'mail jane@example.com'],
    ['the AWS sample key', 'AKIAIOSFODNN7EXAMPLE'],
    [
      'a PEM header and footer in prose',
      'A PEM key starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE KEY-----.',
    ],
    ['a PEM public key', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----'],
    ['plain numbers', 'order 12345 shipped in 3 boxes'],
    ['a placeholder password', 'password=${DB_PASSWORD}'],
    ['a URL with a placeholder password', 'postgres://user:password@host/db'],
    ['already redacted text', 'password=[REDACTED:password]'],
    ['full-width prose', 'Ｔｈａｎｋ ｙｏｕ ｆｏｒ ｔｈｅ ｒｅｐｏｒｔ'],
    ['a dotted version number', 'build 10.245.67.8901 is out'],
    ['nine single digits without the word', 'row 5 3 4 6 7 8 9 1 2'],
  ])('leaves %s alone', (_name, input) => {
    expect(redact(input)).toEqual({ text: input, counts: {} });
  });

  it('redacts nested values and counts every occurrence', () => {
    const counts: RedactionCounts = {};
    const out = redactValue({ a: ['123-45-6789', { b: 'x 123-45-6789' }], n: 5, d: null }, counts);
    expect(out).toEqual({ a: ['[REDACTED:us_ssn]', { b: 'x [REDACTED:us_ssn]' }], n: 5, d: null });
    expect(counts).toEqual({ us_ssn: 2 });
  });
});

describe('redaction on hostile cells', () => {
  // NB: no time assertion; a quadratic pattern would blow the test's own timeout on these sizes
  it.each(HOSTILE_MEGABYTES)('scans a megabyte %s', (_name, text) => {
    const counts: RedactionCounts = {};
    expect(typeof redactText(text, counts)).toBe('string');
  });
});

describe('agreement with the built-in pack', () => {
  const corpus = readCorpus();
  const redacts = (text: string) => {
    const counts: RedactionCounts = {};
    redactText(text, counts);
    return Object.keys(counts).length > 0;
  };

  // NB: not the chat examples (a value split across messages, a field of the request: an answer is one text) nor
  // those hidden in base64 (the pack decodes base64; redaction masks characters of the answer and does not)
  const answers = corpus.filter((e) => !e.messages && !e.via);

  it('redacts something in every example the pack labels pii or secrets', () => {
    const missed = answers
      .filter((e) => (e.labels.includes('pii') || e.labels.includes('secrets')) && !redacts(e.text))
      .map((e) => `${e.at} ${e.note}`);
    expect(missed).toEqual([]);
  });

  it('redacts nothing in the examples the pack labels otherwise (SQL, prompt injection, negatives)', () => {
    const extra = answers
      .filter((e) => !e.labels.includes('pii') && !e.labels.includes('secrets') && redacts(e.text))
      .map((e) => `${e.at} ${e.note}`);
    expect(extra).toEqual([]);
  });
});
