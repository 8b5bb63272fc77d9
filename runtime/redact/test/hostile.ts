/**
 * Megabyte texts shaped to make a careless pattern or window quadratic: each detector's prefix repeated without
 * its completion. Shared by the whole-text and the streaming redaction tests (no time assertion there: a quadratic
 * scan would blow the test's own timeout on these sizes).
 */
export const HOSTILE_MEGABYTES: readonly [name: string, text: string][] = [
  ['word run', 'a'.repeat(1 << 20)],
  ['email-ish run', 'a@'.repeat(1 << 19)],
  ['unterminated PEM headers', '-----BEGIN PRIVATE KEY-----\n'.repeat(30_000)],
  ['URL prefixes without @', 'http://a:'.repeat(100_000)],
  ['token prefixes', 'sk-'.repeat(300_000)],
  ['digit run', '4'.repeat(1 << 20)],
  ['IBAN-ish run', 'GB82 '.repeat(200_000)],
  ['password labels', 'password='.repeat(100_000)],
  ['phone words', 'call me '.repeat(130_000)],
  ['passport words', 'passport '.repeat(110_000)],
  ['mysql command lines', 'mysql '.repeat(170_000)],
  ['footerless PEM headers with material', ('-----BEGIN PRIVATE KEY-----\n' + 'A'.repeat(50) + '\n').repeat(12_000)],
  [
    'PEM headers in armor fields',
    '-----BEGIN PRIVATE KEY-----\n' + 'Comment: -----BEGIN PRIVATE KEY-----\n'.repeat(28_000),
  ],
  ['a footerless PEM body of short lines', '-----BEGIN PRIVATE KEY-----\n' + 'AAAA\n'.repeat(200_000)],
  ['a footerless flattened PEM body', '-----BEGIN PRIVATE KEY----- ' + 'AAAAAAAAAAAAAAAAAAAA '.repeat(50_000)],
  ['blank lines after a PEM header', '-----BEGIN PRIVATE KEY-----' + '\n \t'.repeat(300_000)],
];
