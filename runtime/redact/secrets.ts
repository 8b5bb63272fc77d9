import { NEVER, type Detector } from './detector.js';
import { PEM_MAX_CHARS, pemSpans } from './pem.js';

/** Secret detectors, mirroring config/policies/secrets.yaml (token formats, labels, placeholders). */

/** Placeholders, templating and references to where the secret really lives are not secrets. */
const PLACEHOLDER_START =
  /^(?:\$|<|\{|%|!|\*+$|x+$|\.\.\.|\(|os\.|process\.|env\.|getenv|environ|secrets\.|vault:|ref\+|input\(|null$|none$|nil$|true$|false$|undefined$)/;
const PLACEHOLDER_WORDS = /your[_-]?|example|placeholder|redacted|changeme|dummy|sample/i;
const PLACEHOLDER_VALUES = new Set([
  'password',
  'passwd',
  'secret',
  'string',
  'required',
  'optional',
  'hidden',
  'masked',
  'empty',
  'changeme',
  'change_me',
  'admin',
  'test',
  'token',
  'apikey',
  'api_key',
  'value',
  'default',
]);

export function realValue(v: string): boolean {
  const l = v.toLowerCase();
  return (
    v !== '' &&
    !PLACEHOLDER_START.test(l) &&
    !v.includes('(') &&
    !PLACEHOLDER_VALUES.has(l) &&
    !PLACEHOLDER_WORDS.test(v)
  );
}

const mixed = (v: string) => /[a-z]/i.test(v) && /[0-9!#$%^&*_+=?~@-]/.test(v) && realValue(v);

/** Tokens hold no whitespace, quote, comma, semicolon or bracket (so minified JSON flows too). */
const TOKEN = { on: 'delimiter', after: 0 } as const;
/** Every TOKEN pattern reads at most one character past its match (`(?![\w-])`, `\b`, or nothing). */
const ONE = 1 as const;

export const SECRETS: readonly Detector[] = [
  // NB: a PEM block has no bound (header to footer); the stream window caps it at 16 KiB (stream.ts, docs)
  {
    kind: 'private_key',
    pattern: NEVER,
    spans: pemSpans,
    maxLength: PEM_MAX_CHARS,
    head: { pattern: /-----BEGIN /g, length: 11, first: /-/ },
  },
  {
    kind: 'url_credentials',
    pattern:
      /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|ftp|sftp|https?):\/\/[^:/\s@]{1,256}:[^@\s/]{1,256}@[^\s'"]{0,2048}/gi,
    valid: (s) => realValue(/:\/\/[^:/\s@]+:([^@\s/]+)@/.exec(s)?.[1] ?? ''),
    maxLength: 2_600,
    // NB: the user and password parts may hold quotes and commas, not whitespace
    breaks: { on: 'space', after: 0 },
    head: {
      pattern: /\b(?:postgres|mysql|mariadb|mongodb|rediss?|amqps?|mssql|sqlserver|s?ftp|https?)/gi,
      length: 10,
      words: [
        'postgres',
        'mysql',
        'mariadb',
        'mongodb',
        'redis',
        'rediss',
        'amqp',
        'amqps',
        'mssql',
        'sqlserver',
        'ftp',
        'sftp',
        'http',
        'https',
      ],
    },
  },
  {
    kind: 'slack_webhook',
    pattern: /hooks\.slack\.com\/services\/T[A-Z0-9]{1,32}\/B[A-Z0-9]{1,32}\/[A-Za-z0-9]{16,128}/g,
    maxLength: 240,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /hooks\.slack/g, length: 11, first: /h/ },
  },
  // the key id and its secret side by side: the secret first, before the key id detector takes the id
  {
    kind: 'aws_secret_key',
    pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b[^A-Za-z0-9/+]{1,5}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/g,
    valid: (s) => !s.includes('EXAMPLE'),
    maxLength: 70,
    breaks: { on: 'space', after: 25 },
    head: { pattern: /\b(?:AKIA|ASIA)/g, length: 5, first: /A/ },
  },
  {
    kind: 'aws_secret_key',
    pattern:
      /(?:aws_?secret_?access_?key|secret_?access_?key|aws_?secret(?:_?key)?)["']?\s{0,8}(?:=|:|=>)\s{0,8}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    valid: (s) => !/example/i.test(s),
    maxLength: 90,
    breaks: { on: 'space', after: 41 },
    head: {
      pattern: /aws_?secret|secret_?access/gi,
      length: 13,
      words: ['aws_secret', 'awssecret', 'secret_access', 'secretaccess'],
    },
  },
  {
    kind: 'aws_access_key',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    valid: (s) => !s.endsWith('EXAMPLE'),
    maxLength: 24,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bA(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA|PKA)/g, length: 4, first: /A/ },
  },
  {
    kind: 'google_api_key',
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![\w-])/g,
    maxLength: 44,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bAIza/g, length: 4, first: /A/ },
  },
  {
    kind: 'google_oauth_token',
    pattern: /\bya29\.[0-9A-Za-z_-]{20,2048}/g,
    maxLength: 2_060,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bya29\./g, length: 5, first: /y/ },
  },
  {
    kind: 'github_token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{50,255})(?![\w-])/g,
    maxLength: 270,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\b(?:gh[pousr]_|github_pat_)/g, length: 11, first: /g/ },
  },
  {
    kind: 'gitlab_token',
    pattern: /\b(?:glpat|glptt|glrt|gldt)-[A-Za-z0-9_-]{20,512}/g,
    maxLength: 520,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\b(?:glpat|glptt|glrt|gldt)-/g, length: 6, first: /g/ },
  },
  {
    kind: 'slack_token',
    pattern: /\bxox[abposre]-[0-9A-Za-z-]{10,512}/g,
    maxLength: 520,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bxox[abposre]-/g, length: 5, first: /x/ },
  },
  {
    kind: 'stripe_key',
    pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,512}/g,
    maxLength: 530,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\b(?:sk|rk)_(?:live|test)_/g, length: 8, first: /[sr]/ },
  },
  {
    kind: 'npm_token',
    pattern: /\bnpm_[A-Za-z0-9]{36}(?![\w-])/g,
    maxLength: 44,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bnpm_/g, length: 4, first: /n/ },
  },
  {
    kind: 'sendgrid_key',
    pattern: /\bSG\.[\w-]{22}\.[\w-]{43}(?![\w-])/g,
    maxLength: 72,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bSG\./g, length: 3, first: /S/ },
  },
  {
    kind: 'anthropic_api_key',
    pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{32,512}/g,
    maxLength: 530,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bsk-ant-/g, length: 7, first: /s/ },
  },
  {
    kind: 'openai_api_key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,512}/g,
    maxLength: 530,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bsk-/g, length: 3, first: /s/ },
  },
  {
    kind: 'azure_client_secret',
    pattern: /(?<![\w~.-])([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![\w~.-])/g,
    maxLength: 44,
    breaks: TOKEN,
    lookahead: ONE,
  },
  {
    kind: 'azure_storage_key',
    pattern: /\bAccountKey=([A-Za-z0-9+/]{80,200}={0,2})/gi,
    maxLength: 220,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\bAccountKey=/gi, length: 11, first: /a/i },
  },
  {
    kind: 'azure_sas_token',
    pattern: /[?&]sig=([A-Za-z0-9%+/=]{30,512})/gi,
    valid: (_s, text) => /[?&]sv=\d{4}-\d{2}-\d{2}&/i.test(text),
    maxLength: 520,
    breaks: TOKEN,
    lookahead: ONE,
    textContext: true,
    head: { pattern: /[?&]sig=/gi, length: 5, first: /[?&]/ },
  },
  {
    kind: 'azure_api_key',
    pattern:
      /\b(?:ocp-apim-subscription-key|azure[\w-]{0,40}key|api-key)["']?\s{0,8}[:=]\s{0,8}["']?([a-f0-9]{32})\b/gi,
    maxLength: 110,
    breaks: { on: 'space', after: 67 },
    head: { pattern: /ocp-apim|azure|api-key/gi, length: 8, words: ['ocp-apim', 'azure', 'api-key'] },
  },
  {
    kind: 'jwt',
    pattern: /\beyJ[A-Za-z0-9_-]{8,8192}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,8192}/g,
    maxLength: 24_600,
    breaks: TOKEN,
    lookahead: ONE,
    head: { pattern: /\beyJ/g, length: 3, first: /e/ },
  },
  {
    kind: 'bearer_token',
    pattern: /\bbearer[ \t]{1,16}([A-Za-z0-9._~+/=-]{20,4096})/gi,
    valid: realValue,
    maxLength: 4_130,
    breaks: { on: 'space', after: 23 },
    head: { pattern: /\bbearer/gi, length: 6, words: ['bearer'] },
  },
  {
    kind: 'password',
    pattern: /\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}\s-p([^\s'"]{4,256})/g,
    valid: realValue,
    maxLength: 480,
    // NB: the \s before -p may be a newline, up to 212 characters in
    breaks: { on: 'line', after: 212 },
    head: { pattern: /\b(?:mysql|mysqldump|mysqladmin|mariadb)\b/g, length: 11, first: /m/ },
  },
  {
    kind: 'password',
    // key = value, key: value, "key": "value", KEY=value, where the key ends in a credential word
    pattern:
      /(?:(?<![a-z0-9])(?:pass|pwd)|password|passwd|passphrase|secret|secret_?key(?:_?base)?|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|(?:auth|access|api|bearer|refresh|session|bot|secret|private)[_-]?token)["']?\s{0,8}(?:=|:|=>|:=)\s{0,8}["']?([^\s"',;]{6,4096})/gi,
    valid: realValue,
    maxLength: 4_140,
    breaks: { on: 'space', after: 37 },
    // a superset of the labels' first words: a head only narrows what is held
    head: {
      pattern: /pass|pwd|secret|api|access|private|client|auth|bearer|refresh|session|bot/gi,
      length: 8,
      words: [
        'pass',
        'pwd',
        'secret',
        'api',
        'access',
        'private',
        'client',
        'auth',
        'bearer',
        'refresh',
        'session',
        'bot',
      ],
    },
  },
  {
    kind: 'password',
    pattern:
      /\b(?:password|passcode|passphrase|passwd)\s{1,8}(?:is\s{1,8}|was\s{1,8})?:?\s{0,8}["']?([^\s"',;]{6,4096})/gi,
    valid: mixed,
    maxLength: 4_140,
    breaks: { on: 'space', after: 41 },
    head: { pattern: /\bpass/gi, length: 5, words: ['pass'] },
  },
  {
    kind: 'password',
    pattern: /\b(?:api key|secret key|access key|token)\s{1,8}(?:is|was)\s{0,8}:?\s{0,8}["']?([^\s"',;]{6,4096})/gi,
    valid: mixed,
    maxLength: 4_140,
    breaks: { on: 'space', after: 41 },
    head: { pattern: /\b(?:api|secret|access|token)/gi, length: 7, words: ['api', 'secret', 'access', 'token'] },
  },
];
