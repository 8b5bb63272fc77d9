import { describe, expect, it } from 'vitest';
import { PEM_MAX_CHARS, pemSpans } from './pem.js';

const SHORT = 'MIIBOgIBAAJBAKj34GkxFhD9';

/** The text, and the part of it pemSpans must return as one span. */
const around = (before: string, block: string, after: string): [string, [number, number][]] => [
  before + block + after,
  [[before.length, before.length + block.length]],
];

describe('pemSpans', () => {
  it.each([
    [
      'an RSA key with a one-line short body',
      'k: ',
      `-----BEGIN RSA PRIVATE KEY-----\n${SHORT}\n-----END RSA PRIVATE KEY-----`,
      ' done',
    ],
    ['an EC key with an empty body', '', '-----BEGIN EC PRIVATE KEY-----\n-----END EC PRIVATE KEY-----', '\n'],
    [
      'a DSA header and footer with nothing between',
      '',
      '-----BEGIN DSA PRIVATE KEY----------END DSA PRIVATE KEY-----',
      '',
    ],
    [
      'an OPENSSH key',
      'see\n',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----',
      '\nthanks',
    ],
    [
      'an ENCRYPTED PKCS#8 key',
      '',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0B\n-----END ENCRYPTED PRIVATE KEY-----',
      '',
    ],
    [
      'a PGP private key block with an armor header and a checksum',
      '',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF9kZ2UBCADJ7a1q\n=zXk2\n' +
        '-----END PGP PRIVATE KEY BLOCK-----',
      '',
    ],
    [
      'a PKCS#8 key with CRLF line breaks',
      '',
      '-----BEGIN PRIVATE KEY-----\r\nMC4CAQAwBQYDK2Vw\r\n-----END PRIVATE KEY-----',
      '\r\n',
    ],
    [
      'a traditional encrypted RSA key',
      '',
      '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n' +
        '\nhQ4nJ4h3X0Kd\n-----END RSA PRIVATE KEY-----',
      '',
    ],
    [
      'a key in a JSON string (escaped line breaks)',
      '{"k": "',
      '-----BEGIN PRIVATE KEY-----\\nMC4CAQAwBQYDK2Vw\\n-----END PRIVATE KEY-----',
      '\\n"}',
    ],
    [
      'a key flattened onto one line',
      "KEY='",
      '-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmU Zg== -----END OPENSSH PRIVATE KEY-----',
      "'",
    ],
    [
      'a key cut with an ellipsis',
      '',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n...\n-----END RSA PRIVATE KEY-----',
      '',
    ],
    [
      'a key indented in YAML',
      'tls:\n  key: |\n    ',
      '-----BEGIN EC PRIVATE KEY-----\n    MHcCAQEEIIqCpXGz\n    -----END EC PRIVATE KEY-----',
      '\n',
    ],
    ['a key without footer, its short first line', 'starts like:\n', `-----BEGIN RSA PRIVATE KEY-----\n${SHORT}`, ''],
    [
      'a key without footer, every base64 line of it',
      '',
      `-----BEGIN RSA PRIVATE KEY-----\n${'A'.repeat(64)}\n${'B'.repeat(64)}\nZg==`,
      '\n\nthanks',
    ],
    [
      'a key without footer in a JSON string',
      '{"k": "',
      '-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA',
      '"}',
    ],
    [
      'a key without footer, its fields and a blank line first',
      '',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF9kZ2UBCADJ7a1q',
      '',
    ],
    ['a key without footer flattened onto the header line', '', `-----BEGIN PRIVATE KEY----- ${'A'.repeat(64)}`, ''],
    [
      'a key without footer, cut in the middle of a line',
      '',
      `-----BEGIN RSA PRIVATE KEY-----\n${SHORT}`,
      ' (cut here)',
    ],
  ])('finds %s, header to end', (_name, before, block, after) => {
    const [text, spans] = around(before, block, after);
    expect(pemSpans(text)).toEqual(spans);
  });

  it.each([
    [
      'a header and a footer in prose',
      'A PEM key starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE KEY-----.',
    ],
    ['a header followed by a question', '-----BEGIN RSA PRIVATE KEY-----\nWhat goes in this part of the file?'],
    ['a header in a sentence', '-----BEGIN OPENSSH PRIVATE KEY----- is the first line; what comes after it?'],
    ['a header followed by less than 16 characters of base64 and no footer', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow'],
    ['a public key', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----'],
    [
      'an RSA public key',
      '-----BEGIN RSA PUBLIC KEY-----\nMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PUBLIC KEY-----',
    ],
    ['a certificate', '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEbB4xRzANBgkqhkiG\n-----END CERTIFICATE-----'],
    [
      'a PGP public key block',
      '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQENBFx1c2UBCADJ7a1q\n=zXk2\n-----END PGP PUBLIC KEY BLOCK-----',
    ],
    ['an ssh public key', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host'],
  ])('finds nothing in %s', (_name, text) => {
    expect(pemSpans(text)).toEqual([]);
  });

  it('covers a block with its footer whole however long, one without a footer as far as PEM_MAX_CHARS', () => {
    const body = `${'A'.repeat(64)}\n`.repeat(Math.ceil(PEM_MAX_CHARS / 65) + 10);
    const whole = `-----BEGIN RSA PRIVATE KEY-----\n${body}-----END RSA PRIVATE KEY-----`;
    expect(pemSpans(`${whole}\n`)).toEqual([[0, whole.length]]);
    expect(pemSpans(`-----BEGIN RSA PRIVATE KEY-----\n${body}`)).toEqual([[0, PEM_MAX_CHARS]]);
  });

  it('finds each of two blocks, a footerless one before a whole one', () => {
    const cut = `-----BEGIN RSA PRIVATE KEY-----\n${SHORT}`;
    const whole = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB7w\n-----END EC PRIVATE KEY-----';
    const text = `${cut}\n\nand the other one:\n${whole}`;
    const at = text.indexOf(whole);
    expect(pemSpans(text)).toEqual([
      [0, cut.length],
      [at, at + whole.length],
    ]);
  });
});
