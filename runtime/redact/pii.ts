import { digitsOf, luhn, type Detector } from './detector.js';

/** PII detectors, mirroring config/policies/pii.yaml (patterns, checksums and context words). */

function cardIssuer(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  return (
    (d.startsWith('4') && [13, 16, 19].includes(n)) ||
    (n === 16 && ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720))) ||
    (n === 15 && (p2 === 34 || p2 === 37)) ||
    (n >= 16 &&
      (d.startsWith('6011') ||
        (p3 >= 644 && p3 <= 649) ||
        d.startsWith('65') ||
        (p4 >= 3528 && p4 <= 3589) ||
        d.startsWith('62'))) ||
    (n >= 14 && ((p3 >= 300 && p3 <= 305) || [36, 38, 39].includes(p2)))
  );
}

function ssnValid(span: string): boolean {
  const d = digitsOf(span);
  return (
    d.length === 9 &&
    !['000', '666'].includes(d.slice(0, 3)) &&
    !d.startsWith('9') &&
    d.slice(3, 5) !== '00' &&
    d.slice(5) !== '0000'
  );
}

const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/**
 * The groups may run into the following words ("… 7654 32 today"), so, like the pack, every prefix of
 * the space-separated parts is tried against the country's length and the checksum.
 */
function ibanPrefix(span: string): string | undefined {
  const parts = span.split(' ');
  for (let k = parts.length; k >= 1; k--) {
    const candidate = parts.slice(0, k).join(' ');
    if (ibanValid(candidate)) return candidate;
  }
  return undefined;
}

function ibanValid(span: string): boolean {
  const s = span.replace(/ /g, '').toUpperCase();
  if (IBAN_LENGTHS[s.slice(0, 2)] !== s.length) return false;
  let r = 0;
  for (const c of s.slice(4) + s.slice(0, 4)) {
    const v = c >= 'A' ? String(c.charCodeAt(0) - 55) : c;
    for (const ch of v) r = (r * 10 + Number(ch)) % 97;
  }
  return r === 1;
}

const ROLE_MAILBOXES = new Set([
  'abuse',
  'admin',
  'billing',
  'contact',
  'git',
  'hello',
  'help',
  'info',
  'marketing',
  'no-reply',
  'noreply',
  'postmaster',
  'privacy',
  'sales',
  'security',
  'support',
  'team',
  'webmaster',
]);
const RESERVED_DOMAIN = /(^|\.)(example\.(com|org|net)|test|invalid|localhost|example)$/i;

const SSN_CONTEXT = /\b(ssn|social security|soc\.? ?sec)/i;
const AADHAAR_CONTEXT = /\b(aadhaa?r|uidai)\b/i;
const NINO_NEVER = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);
const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Verhoeff check over the dihedral group D5 (Aadhaar). */
const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 2, 4, 1],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 7, 6, 8, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

function verhoeff(num: string): boolean {
  let c = 0;
  [...num].reverse().forEach((ch, i) => (c = VERHOEFF_D[c]![VERHOEFF_P[i % 8]![Number(ch)]!]!));
  return c === 0;
}

function dniValid(span: string): boolean {
  const m = /^([XYZ]?)([0-9]{7,8})-?([A-Z])$/.exec(span);
  if (!m || m[1]!.length + m[2]!.length !== 8) return false;
  const n = Number(`${m[1] ? 'XYZ'.indexOf(m[1]) : ''}${m[2]}`);
  return DNI_LETTERS[n % 23] === m[3];
}

const phoneDigits = (s: string) => digitsOf(s).length;

/** Streaming heads (detector.ts): the first character of every match. */
const DIGIT = { pattern: /[0-9]/g, length: 1 };

/** The words before a national phone number (the start of the detector's pattern, for the stream window). */
const PHONE_WORDS =
  /\b(?:phone|telephone|tel|telefon|mobile|mob|cell|cellphone|call|text|sms|fax|whatsapp|reach|dial)\b/gi;

export const PII: readonly Detector[] = [
  {
    kind: 'us_ssn',
    pattern: /(?<![\w-])(\d{3}-\d{2}-\d{4}|\d{3} \d{2} \d{4})(?![\w-]|[ .-]\d)/g,
    valid: ssnValid,
    maxLength: 16,
    head: DIGIT,
  },
  {
    kind: 'us_ssn',
    pattern: /(?<![\w-])(\d{9})(?![\w-]|[ .-]\d)/g,
    valid: (s, text) => ssnValid(s) && SSN_CONTEXT.test(text),
    maxLength: 16,
    head: DIGIT,
    textContext: true,
  },
  // dotted (123.45.6789), not part of a longer dotted number
  {
    kind: 'us_ssn',
    pattern: /(?<![\w.-])(\d{3}\.\d{2}\.\d{4})(?![\w-]|\.\d)/g,
    valid: ssnValid,
    maxLength: 16,
    head: DIGIT,
  },
  // other separators (455/31/8806, 318_52_7640, a tab, a line break, " - "), like nine plain digits only with the context word
  {
    kind: 'us_ssn',
    pattern:
      /(?<![\w/.-]|\d\s)(\d{3}(?:\/\d{2}\/|_\d{2}_|\t\d{2}\t|\n\d{2}\n| - \d{2} - )\d{4})(?![\w/-]|[ .\t\n/-]\d)/g,
    valid: (s, text) => ssnValid(s) && SSN_CONTEXT.test(text),
    maxLength: 22,
    head: DIGIT,
    textContext: true,
  },
  // one digit at a time (1 2 3 4 5 6 7 8 9), like nine plain digits only with the context word
  {
    kind: 'us_ssn',
    pattern: /(?<![\w.-]|\d[ .-])(\d(?:[ .-]\d){8})(?![\w-]|[ .-]\d)/g,
    valid: (s, text) => ssnValid(s) && SSN_CONTEXT.test(text),
    maxLength: 22,
    head: DIGIT,
    textContext: true,
  },
  {
    kind: 'payment_card',
    pattern:
      /(?<![\d-]|\d\.)(\d{4}[ .-]\d{4}[ .-]\d{4}[ .-]\d{4}|\d{4}[ .-]\d{6}[ .-]\d{4,5}|\d{13,19})(?![\d-]|\.\d)/g,
    valid: (s) => cardIssuer(digitsOf(s)) && luhn(digitsOf(s)),
    maxLength: 24,
    head: DIGIT,
  },
  // groups of four, the last of two to four digits, separated by an underscore, a tab, a line break or " - " as well
  {
    kind: 'payment_card',
    pattern:
      /(?<![\d-]|\d[.\s])(\d{4}(?:(?:[ .\t\n_-]| - )\d{4}){2}(?:[ .\t\n_-]| - )\d{2,4})(?![\d_-]|[\s.]\d| - \d)/g,
    valid: (s) => cardIssuer(digitsOf(s)) && luhn(digitsOf(s)),
    maxLength: 32,
    head: DIGIT,
  },
  // one digit at a time (4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1)
  {
    kind: 'payment_card',
    pattern: /(?<![\d.-]|\d )(\d(?:[ .-]\d){12,18})(?![\d-]|[ .]\d)/g,
    valid: (s) => cardIssuer(digitsOf(s)) && luhn(digitsOf(s)),
    maxLength: 42,
    head: DIGIT,
  },
  {
    kind: 'iban',
    pattern: /\b([A-Za-z]{2}[0-9]{2}(?: ?[A-Za-z0-9]{1,4}){3,8})/g,
    refine: ibanPrefix,
    maxLength: 48,
    head: { pattern: /[A-Za-z]{2}[0-9]{2}/g, length: 4, partial: /^(?:[A-Za-z]{1,2}|[A-Za-z]{2}[0-9])$/ },
  },
  {
    kind: 'passport',
    pattern: /[Pp][Aa][Ss][Ss][Pp][Oo][Rr][Tt][^\n]{0,40}?\b([A-Z]{1,2}[0-9]{6,8}|[0-9]{8,9}|[A-Z0-9]{9})\b/g,
    valid: (s) => digitsOf(s).length >= 5,
    maxLength: 60,
    head: { pattern: /[Pp][Aa][Ss][Ss][Pp][Oo][Rr][Tt]/g, length: 8, first: /[Pp]/ },
  },
  {
    kind: 'aadhaar',
    pattern: /(?<![\w-]|\d[ -])([2-9]\d{3}([ -]?)\d{4}\2\d{4})(?![\w-]|[ -]\d)/g,
    valid: (s, text) => verhoeff(digitsOf(s)) && (/[ -]/.test(s) || AADHAAR_CONTEXT.test(text)),
    maxLength: 20,
    head: { pattern: /[2-9]/g, length: 1 },
    textContext: true,
  },
  {
    kind: 'india_pan',
    pattern: /\b([A-Z]{3}[ABCFGHJLPT][A-Z][0-9]{4}[A-Z])\b/g,
    maxLength: 12,
    head: { pattern: /\b[A-Z]{3}[ABCFGHJLPT]/g, length: 4, first: /[A-Z]/ },
  },
  {
    kind: 'uk_nino',
    pattern: /\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?[0-9]{2} ?[0-9]{2} ?[0-9]{2} ?[A-D])\b/g,
    valid: (s) => !NINO_NEVER.has(s.slice(0, 2)),
    maxLength: 16,
    head: { pattern: /\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]/g, length: 2, first: /[A-CEGHJ-PR-TW-Z]/ },
  },
  {
    kind: 'canada_sin',
    pattern: /(?:[Ss]ocial [Ii]nsurance|SOCIAL INSURANCE|\bSIN\b)[^\n\d]{0,30}\b(\d{3}([ -]?)\d{3}\2\d{3})\b/g,
    valid: (s) => luhn(digitsOf(s)),
    maxLength: 60,
    head: {
      pattern: /[Ss]ocial [Ii]nsurance|SOCIAL INSURANCE|\bSIN\b/g,
      length: 17,
      words: ['social insurance', 'sin'],
    },
  },
  {
    kind: 'spain_dni',
    pattern: /\b([XYZ]?[0-9]{7,8}-?[A-Z])\b/g,
    valid: dniValid,
    maxLength: 16,
    head: { pattern: /\b[XYZ0-9]/g, length: 1 },
  },
  {
    kind: 'email',
    pattern:
      /(?<![\w.%+:/-])([A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,127}[A-Za-z]{2,24})\b/g,
    valid: (s) => {
      const [local = '', domain = ''] = s.toLowerCase().split('@');
      return !ROLE_MAILBOXES.has(local) && !RESERVED_DOMAIN.test(domain);
    },
    // NB: 127 labels (RFC 1035 caps a name at 253 characters) bound the span for the stream window
    maxLength: 8_250,
    breaks: { on: 'delimiter', after: 0 },
    // the closing \b reads one character past the top-level domain
    lookahead: 1,
  },
  {
    kind: 'phone',
    pattern: /(?<![\w+])(\+\d[\d ().-]{6,20}\d)/g,
    valid: (s) => phoneDigits(s) >= 8 && phoneDigits(s) <= 15,
    maxLength: 26,
    head: { pattern: /\+/g, length: 1 },
  },
  {
    kind: 'phone',
    pattern: /(?<![\w)])(\(\d{3}\) ?\d{3}[ .-]\d{4})\b/g,
    maxLength: 16,
    head: { pattern: /\(/g, length: 1 },
  },
  {
    kind: 'phone',
    // national formats need a word such as "phone" or "call" shortly before them
    pattern:
      /\b(?:phone|telephone|tel|telefon|mobile|mob|cell|cellphone|call(?: me)?|text(?: me)?|sms|fax|whatsapp|reach (?:me|her|him|us)|dial)\b[^\n\d+]{0,25}((?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}|0\d{1,4}[ -]?\d{3,4}[ -]?\d{3,4}|0\d(?:[ .-]?\d{2}){4})\b/gi,
    valid: (s) => phoneDigits(s) >= 9,
    maxLength: 60,
    head: {
      pattern: PHONE_WORDS,
      length: 12,
      words: [
        'phone',
        'telephone',
        'tel',
        'telefon',
        'mobile',
        'mob',
        'cell',
        'cellphone',
        'call',
        'text',
        'sms',
        'fax',
        'whatsapp',
        'reach',
        'dial',
      ],
    },
  },
];
