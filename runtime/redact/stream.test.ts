import { describe, expect, it } from 'vitest';
import { PII_REDACTION_KINDS, SECRET_REDACTION_KINDS } from '../../api/index.js';
import { readCorpus } from '../policy/pack/corpus.js';
import { DETECTORS } from './detectors.js';
import { redactText, type RedactionCounts } from './redact.js';
import { redactSpans, render } from './spans.js';
import { detectorsOf, STREAM_WINDOW_CHARS, StreamRedactor } from './stream.js';
import { HOSTILE_MEGABYTES } from './test/hostile.js';

/** Texts with a secret or PII in them, beside the pack corpus. */
const SAMPLES = [
  'ssn 123-45-6789 on file',
  'card 4111-1111-1111-1111',
  'pay to GB82 WEST 1234 5698 7654 32 today',
  'write to jane.doe@corp.io please',
  'call +44 20 7946 0958 now',
  'key AKIAIOSFODNN7ABCDEFG here',
  `token ghp_${'a'.repeat(36)} end`,
  'dsn postgres://app:hunter22@db:5432/x and more',
  'k: -----BEGIN RSA PRIVATE KEY-----\nMIIEow' + 'A'.repeat(60) + '\n-----END RSA PRIVATE KEY----- done',
  'passport no: 548193207, issued 2019',
  'NINO: AB 12 34 56 D',
  'DB_PASSWORD=s3cr3t-Pa55w0rd! and then',
  '-----BEGIN PRIVATE KEY----- ' + 'A'.repeat(64),
  'short: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB7w\n-----END EC PRIVATE KEY----- and after',
  'cut: -----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\nZg==\n\nand after',
  'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig and after',
  'Card 4111 1111 1111 1111 ok',
  'mysql -u root -pS3cretPass db',
  'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123 then',
  'two cards 4111111111111111 and 5500 0000 0000 0004, mail jo@mail.co',
  // Unicode forms: the detectors read the normalized text, the original characters are masked
  'ssn 123\u200b-45\u200b-6789 on file',
  'card ４１１１ １１１１ １１１１ １１１１ ok',
  'SSN ١٢٣-٤٥-٦٧٨٩ and more',
  'SSN 𝟏𝟐𝟑–𝟒𝟓–𝟔𝟕𝟖𝟗, astral digits',
  'key \u0410KIAIOSFODNN7ABCDEFG here',
  `token gh\u0440_${'a'.repeat(36)} end`,
  'SSN 123.45.6789 and card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 done',
  'ﬁne ligature then 4111\u00ad1111\u00ad1111\u00ad1111 and ﬁn',
];

/** Deterministic pseudo-random numbers (mulberry32): the property runs the same splits every time. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function split(text: string, next: () => number, maxPiece: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(next() * maxPiece);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function stream(pieces: readonly string[], detectors = DETECTORS): { emitted: string[]; counts: RedactionCounts } {
  const r = new StreamRedactor(detectors);
  const emitted = pieces.map((p) => r.push(p));
  emitted.push(r.end());
  return { emitted, counts: r.counts };
}

const whole = (text: string, detectors = DETECTORS) => redactText(text, {}, detectors);
/** The detectors whose result does not depend on context words anywhere in the text. */
const LOCAL = DETECTORS.filter((d) => !d.textContext);
const texts = [...SAMPLES, ...readCorpus().map((e) => e.text)];

describe('redactSpans', () => {
  it('renders to what redactText returns, on the pack corpus and the samples', () => {
    const differ = texts.filter((t) => render(t, redactSpans(t)) !== whole(t));
    expect(differ).toEqual([]);
  });
});

describe('StreamRedactor', () => {
  it('masks a card number split over three chunks, and no piece carries its digits', () => {
    const { emitted, counts } = stream(['Card 4111 11', '11 1111 ', '1111 ok']);
    expect(emitted.join('')).toBe('Card [REDACTED:payment_card] ok');
    expect(emitted.filter((p) => /\d/.test(p))).toEqual([]);
    expect(counts).toEqual({ payment_card: 1 });
  });

  it('masks an SSN written with zero-width spaces and split inside, and no piece carries its digits', () => {
    const { emitted, counts } = stream(['Your SSN is 123\u200b-4', '5\u200b-67', '89, noted.']);
    expect(emitted.join('')).toBe('Your SSN is [REDACTED:us_ssn], noted.');
    expect(emitted.filter((p) => /\p{Nd}/u.test(p))).toEqual([]);
    expect(counts).toEqual({ us_ssn: 1 });
  });

  it('masks a card in full-width digits and one split inside a surrogate pair, whatever the digits', () => {
    const astral = 'card 𝟒𝟏𝟏𝟏 𝟏𝟏𝟏𝟏 𝟏𝟏𝟏𝟏 𝟏𝟏𝟏𝟏 ok';
    for (const pieces of [
      ['card ４１１１ １１', '１１ １１１１ １１１１ ok'],
      [astral.slice(0, 8), astral.slice(8, 31), astral.slice(31)],
    ]) {
      const { emitted } = stream(pieces);
      expect(emitted.join('')).toBe('card [REDACTED:payment_card] ok');
      expect(emitted.filter((p) => /\p{Nd}/u.test(p))).toEqual([]);
    }
  });

  it('lets prose flow with a short hold', () => {
    const r = new StreamRedactor();
    let out = '';
    for (const word of 'The answer is simple: rotate keys every ninety days and keep them out of the code base, always.'.split(
      /(?<= )/,
    ))
      out += r.push(word);
    expect(out.length).toBeGreaterThan(20);
    expect(r.held).toBeLessThanOrEqual(32);
    expect(out + r.end()).toBe(
      'The answer is simple: rotate keys every ninety days and keep them out of the code base, always.',
    );
  });

  it('emits, joined, what redactText gives the whole text, for random splits (detectors without text context)', () => {
    const next = random(7);
    const wrong: string[] = [];
    for (const text of texts) {
      for (const maxPiece of [1, 3, 8, 40]) {
        const pieces = split(text, next, maxPiece);
        if (stream(pieces, LOCAL).emitted.join('') !== whole(text, LOCAL)) wrong.push(JSON.stringify(pieces));
      }
    }
    expect(wrong).toEqual([]);
  });

  it('never emits a piece holding a value the whole-text redaction masks (every detector)', () => {
    const next = random(11);
    const leaks: string[] = [];
    for (const text of texts) {
      const redacted = whole(text);
      // (a value the whole text also holds unmasked elsewhere is no leak)
      const masked = redactSpans(text)
        .map((s) => text.slice(s.start, s.end))
        .filter((v) => v.length >= 8 && !redacted.includes(v));
      if (masked.length === 0) continue;
      for (const maxPiece of [2, 5, 17]) {
        const { emitted } = stream(split(text, next, maxPiece));
        // a masked value may be split over two pieces: look at each piece and at each pair of neighbours
        for (let i = 0; i < emitted.length; i++) {
          const seen = emitted[i]! + (emitted[i + 1] ?? '');
          for (const v of masked) if (seen.includes(v)) leaks.push(`${v} in ${JSON.stringify(emitted)}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it('lets indented code flow (runs of spaces do not hide the last break)', () => {
    const r = new StreamRedactor();
    let out = '';
    const code = 'function f() {\n        if (x) {\n                return y;\n        }\n}\n'.repeat(20);
    for (let i = 0; i < code.length; i += 3) out += r.push(code.slice(i, i + 3));
    expect(r.held).toBeLessThanOrEqual(32);
    expect(out + r.end()).toBe(code);
  });

  it('lets minified JSON (tool-call arguments) flow: quotes and commas end tokens', () => {
    const r = new StreamRedactor();
    const json = JSON.stringify({
      query: 'weather',
      cities: ['Paris', 'Berlin', 'Madrid'],
      units: 'metric',
      days: 3,
    }).repeat(5);
    let out = '';
    for (let i = 0; i < json.length; i += 3) out += r.push(json.slice(i, i + 3));
    expect(r.held).toBeLessThanOrEqual(32);
    expect(out + r.end()).toBe(json);
  });

  it('holds a secret as long as it may grow, then masks it whole', () => {
    const token = `sk-proj-${'A1b2'.repeat(30)}`;
    const pieces = ['here: ', ...split(token, random(3), 6), ' done'];
    const { emitted } = stream(pieces);
    expect(emitted.join('')).toBe('here: [REDACTED:openai_api_key] done');
  });

  it.each([
    [
      'with its footer',
      'key:\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIBOgIBAAJBAKj34GkxFhD9\nZg==\n' +
        '-----END RSA PRIVATE KEY-----\nthanks',
      'key:\n[REDACTED:private_key]\nthanks',
    ],
    [
      'without a footer',
      'key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAAAA==\n\nthanks',
      'key:\n[REDACTED:private_key]\n\nthanks',
    ],
  ])('masks a short PEM block %s split across chunks, every line of it', (_name, text, want) => {
    for (const maxPiece of [1, 4, 9, 30]) {
      const { emitted, counts } = stream(split(text, random(5), maxPiece));
      expect(emitted.join('')).toBe(want);
      expect(counts).toEqual({ private_key: 1 });
      expect(emitted.filter((p) => /MIIB|b3Bl|Zg==|AAAA/.test(p))).toEqual([]);
    }
  });

  it('redacts only the kinds it is given', () => {
    const { emitted } = stream(['mail jane.doe@corp.io, card 4111 1111 ', '1111 1111'], detectorsOf(['payment_card']));
    expect(emitted.join('')).toBe('mail jane.doe@corp.io, card [REDACTED:payment_card]');
  });

  it('passes text through when no detector is given', () => {
    expect(stream(['a 4111111111111111', ' b'], []).emitted).toEqual(['a 4111111111111111', ' b', '']);
  });

  it('bounds its window by the longest detector match', () => {
    expect(STREAM_WINDOW_CHARS).toBe(Math.max(...DETECTORS.map((d) => d.maxLength)));
    const r = new StreamRedactor();
    for (let i = 0; i < 100; i++) r.push('x'.repeat(1000));
    expect(r.held).toBeLessThanOrEqual(STREAM_WINDOW_CHARS * 1.25 + 1000);
  });
});

describe('detector kinds', () => {
  it('are the kinds api/policy.ts lists for spec.redact.kinds', () => {
    expect(new Set(DETECTORS.map((d) => d.kind))).toEqual(new Set([...PII_REDACTION_KINDS, ...SECRET_REDACTION_KINDS]));
  });
});

describe('streaming redaction on hostile text', () => {
  // NB: no time assertion; a quadratic window would blow the test's own timeout on these sizes
  it.each(HOSTILE_MEGABYTES)('streams a megabyte %s in 1 KiB pieces', (_name, text) => {
    const r = new StreamRedactor();
    let n = 0;
    for (let i = 0; i < text.length; i += 1024) n += r.push(text.slice(i, i + 1024)).length;
    n += r.end().length;
    expect(n).toBeGreaterThan(0);
  });
});

describe('what a stream holds back', () => {
  it('lets prose through word by word: nothing of a finished word is held once its space arrives', () => {
    const r = new StreamRedactor();
    let out = '';
    for (const w of 'Book the flight through the travel agency at least fourteen days ahead'.split(' ')) {
      out += r.push(`${w} `);
      expect(r.held).toBe(0);
    }
    expect(out).toBe('Book the flight through the travel agency at least fourteen days ahead ');
  });

  it('holds a word that may begin a head (a credential label, a phone word, a key prefix) until it is decided', () => {
    for (const [text, held] of [
      ['my pass', 4],
      ['call', 4],
      ['key sk', 2],
      ['ibans GB8', 3],
    ] as const) {
      const r = new StreamRedactor();
      r.push(text);
      expect(r.held, text).toBeGreaterThanOrEqual(held);
    }
  });

  it('holds a number that may become a card, never sending a piece of it', () => {
    const r = new StreamRedactor();
    const pieces = [r.push('Card 4111 1111 '), r.push('1111 1111 and'), r.push(' more text follows here'), r.end()];
    expect(pieces[0]).toBe('Card ');
    for (const p of pieces) expect(p).not.toMatch(/\d/);
    expect(pieces.join('')).toBe('Card [REDACTED:payment_card] and more text follows here');
  });
});
