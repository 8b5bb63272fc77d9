import { describe, expect, it } from 'vitest';
import { BuiltinError } from '../../errors.js';
import { RObject, toJS, type Value } from '../../value.js';
import { register } from './crypto.js';
import {
  INTERMEDIATE_CERT,
  INTERMEDIATE_KEY_SEC1,
  LEAF_CERT,
  LEAF_CSR,
  LEAF_KEY_PKCS1,
  LEAF_KEY_PKCS8,
  ROOT_CERT,
} from '../../lib/x509/test/fixtures.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';

const registry = new BuiltinRegistry();
register(registry);

// 2030-01-01, inside the fixtures' validity (2026-11-21 .. 2126-10-28).
const NOW = 1_893_456_000_000_000_000n;
const ctx: BuiltinContext = {
  strict: true,
  nowNs: () => NOW,
  cache: new Map(),
  checkDeadline: () => {},
  charge: () => {},
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function call(name: string, ...args: Value[]): any {
  return toJS(registry.get(name)!.impl(args, ctx)!);
}

function fails(name: string, ...args: Value[]): Error {
  try {
    registry.get(name)!.impl(args, ctx);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${name} did not fail`);
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const derB64 = (pem: string): string => pem.replace(/-----[^-]+-----|\s/g, '');

describe('digests and HMACs', () => {
  const unicode = 'åäöçß🥲♙Ω';
  it.each([
    { fn: 'crypto.md5', args: ['lorem ipsum'], want: '80a751fde577028640c419000e33eba6' },
    { fn: 'crypto.sha1', args: ['lorem ipsum'], want: 'bfb7759a67daeb65410490b4d98bb9da7d1ea2ce' },
    {
      fn: 'crypto.sha256',
      args: ['lorem ipsum'],
      want: '5e2bf57d3f40c4b6df69daf1936cb766f832374b4fc0259a7cbff06e2f70f269',
    },
    { fn: 'crypto.hmac.md5', args: ['foo', 'bar'], want: '31b6db9e5eb4addb42f1a6ca07367adc' },
    { fn: 'crypto.hmac.sha1', args: ['foo', 'bar'], want: '85d155c55ed286a300bd1cf124de08d87e914f3a' },
    {
      fn: 'crypto.hmac.sha256',
      args: ['message', 'key'],
      want: '6e9ef29b75fffc5b7abae527d58fdadb2fe42e7219011976917343065f58ed4a',
    },
    {
      fn: 'crypto.hmac.sha512',
      args: [unicode, '秘密の'],
      want: '192f5afded233d6e21427aa26ed267ac118cfa2971013d91cbed530c0b208d78138b83dfe1d6cc3553d7bd518f22a481402c723028e1279d1ffbe8f11ea6b125',
    },
  ])('$fn hashes UTF-8 bytes to lowercase hex', ({ fn, args, want }) => {
    expect(call(fn, ...args)).toBe(want);
  });

  it.each([
    { a: 'abc', b: 'abc', want: true },
    { a: 'abc', b: 'abd', want: false },
    { a: 'abc', b: 'abcd', want: false },
    { a: '', b: '', want: true },
  ])('crypto.hmac.equal("$a", "$b") is $want', ({ a, b, want }) => {
    expect(call('crypto.hmac.equal', a, b)).toBe(want);
  });
});

describe('crypto.x509.parse_certificates', () => {
  it.each([
    { name: 'a PEM string', input: LEAF_CERT },
    { name: 'base64 PEM', input: b64(LEAF_CERT) },
    { name: 'base64 DER', input: derB64(LEAF_CERT) },
  ])('reads $name', ({ input }) => {
    const [cert] = call('crypto.x509.parse_certificates', input);
    expect(cert.Subject.CommonName).toBe('svc.example.test');
    expect(cert.Subject.Country).toEqual(['NL']);
    expect(cert.Issuer.CommonName).toBe('Steward Test Intermediate');
    expect(cert.DNSNames).toEqual(['svc.example.test']);
    expect(cert.IPAddresses).toEqual(['10.0.0.7']);
    expect(cert.URIStrings).toEqual(['spiffe://example.test/svc']);
    expect(cert.URIs[0]).toMatchObject({ Scheme: 'spiffe', Host: 'example.test', Path: '/svc' });
    expect(cert.ExtKeyUsage).toEqual([1]);
    expect(cert.KeyUsage).toBe(5);
    expect(cert.PublicKeyAlgorithm).toBe(1);
    expect(cert.SignatureAlgorithm).toBe(10);
    expect(cert.Version).toBe(3);
    expect(cert.BasicConstraintsValid).toBe(true);
    expect(cert.IsCA).toBe(false);
    expect(cert.NotBefore).toBe('2026-11-21T05:17:27Z');
    expect(cert.NotAfter).toBe('2126-10-28T05:17:27Z');
    expect(typeof cert.PublicKey.N).toBe('bigint');
    expect(cert.PublicKey.E).toBe(65537);
    expect(cert.Raw).toBe(derB64(LEAF_CERT));
  });

  it('reads concatenated chains in order', () => {
    const certs = call('crypto.x509.parse_certificates', LEAF_CERT + INTERMEDIATE_CERT + ROOT_CERT);
    expect(certs.map((c: { Subject: { CommonName: string } }) => c.Subject.CommonName)).toEqual([
      'svc.example.test',
      'Steward Test Intermediate',
      'Steward Test Root',
    ]);
    expect(certs[1].MaxPathLen).toBe(0);
    expect(certs[1].MaxPathLenZero).toBe(true);
    expect(certs[2].PublicKey.Curve).toEqual({});
    expect(certs[2].URIStrings).toBeNull();
  });

  it('gives null for empty input', () => {
    expect(call('crypto.x509.parse_certificates', '')).toBeNull();
  });

  it.each([
    { name: 'non-certificate DER', input: b64('badstring'), msg: 'x509: malformed certificate' },
    { name: 'text that is not base64', input: 'foobar', msg: 'illegal base64 data at input byte 4' },
    {
      name: 'other PEM blocks',
      input: LEAF_KEY_PKCS1,
      msg: "PEM block type is 'RSA PRIVATE KEY', expected CERTIFICATE",
    },
  ])('rejects $name', ({ input, msg }) => {
    const e = fails('crypto.x509.parse_certificates', input);
    expect(e).toBeInstanceOf(BuiltinError);
    expect(e.message).toBe(msg);
  });
});

describe('crypto.x509.parse_and_verify_certificates', () => {
  const chain = ROOT_CERT + INTERMEDIATE_CERT + LEAF_CERT;

  it('verifies a chain from the root to the leaf and returns it leaf first', () => {
    const [valid, certs] = call('crypto.x509.parse_and_verify_certificates', chain);
    expect(valid).toBe(true);
    expect(certs.map((c: { Subject: { CommonName: string } }) => c.Subject.CommonName)).toEqual([
      'svc.example.test',
      'Steward Test Intermediate',
      'Steward Test Root',
    ]);
    expect(certs[0].URIStrings).toEqual(['spiffe://example.test/svc']);
  });

  it.each([
    { name: 'the chain is out of order', input: LEAF_CERT + INTERMEDIATE_CERT + ROOT_CERT },
    { name: 'the intermediate is missing', input: ROOT_CERT + LEAF_CERT },
    { name: 'only one certificate is given', input: LEAF_CERT },
    { name: 'the input does not parse', input: 'foobar' },
  ])('is [false, []] when $name', ({ input }) => {
    expect(call('crypto.x509.parse_and_verify_certificates', input)).toEqual([false, []]);
  });

  it.each([
    { name: 'the matching DNS name', opts: { DNSName: 'svc.example.test' }, valid: true },
    { name: 'another DNS name', opts: { DNSName: 'other.example.test' }, valid: false },
    { name: 'a time before the validity period', opts: { CurrentTime: 1_600_000_000_000_000_000 }, valid: false },
    { name: 'server auth usage', opts: { KeyUsages: ['KeyUsageServerAuth'] }, valid: true },
    { name: 'client auth usage, which the leaf lacks', opts: { KeyUsages: ['KeyUsageClientAuth'] }, valid: false },
    { name: 'any usage', opts: { KeyUsages: ['KeyUsageAny'] }, valid: true },
  ])('applies options: $name', ({ opts, valid }) => {
    const [ok, certs] = call(
      'crypto.x509.parse_and_verify_certificates_with_options',
      chain,
      RObject.from(Object.entries(opts).map(([k, v]) => [k, toValue(v)])),
    );
    expect(ok).toBe(valid);
    expect(certs.length).toBe(valid ? 3 : 0);
    if (valid) expect(certs[0].URIStrings).toBeUndefined();
  });

  it.each([
    { opts: { Foo: 1 }, msg: 'invalid key option' },
    { opts: { DNSName: 1 }, msg: "'DNSName' should be a string" },
    {
      opts: { KeyUsages: ['KeyUsageNope', 'Other'] },
      msg: "invalid entries for 'KeyUsages' found: [KeyUsageNope Other]",
    },
  ])('rejects bad options with "$msg"', ({ opts, msg }) => {
    const o = RObject.from(Object.entries(opts).map(([k, v]) => [k, toValue(v)]));
    expect(fails('crypto.x509.parse_and_verify_certificates_with_options', chain, o).message).toBe(msg);
  });
});

function toValue(v: unknown): Value {
  return Array.isArray(v) ? v.map(toValue) : (v as Value);
}

describe('crypto.x509.parse_certificate_request', () => {
  it.each([
    { name: 'PEM', input: LEAF_CSR },
    { name: 'base64 PEM', input: b64(LEAF_CSR) },
    { name: 'base64 DER', input: derB64(LEAF_CSR) },
  ])('reads $name', ({ input }) => {
    const csr = call('crypto.x509.parse_certificate_request', input);
    expect(csr.Subject.CommonName).toBe('svc.example.test');
    expect(csr.DNSNames).toEqual(['svc.example.test']);
    expect(csr.IPAddresses).toEqual(['10.0.0.7']);
    expect(csr.PublicKeyAlgorithm).toBe(1);
    expect(csr.SignatureAlgorithm).toBe(4);
  });

  it('reports ASN.1 structure errors for non-CSR DER', () => {
    expect(fails('crypto.x509.parse_certificate_request', b64('badstring')).message).toMatch(/^asn1: structure error/);
  });
});

describe('keys', () => {
  it.each([
    { name: 'PKCS#1', pem: LEAF_KEY_PKCS1 },
    { name: 'PKCS#8', pem: LEAF_KEY_PKCS8 },
    { name: 'base64 PKCS#1', pem: b64(LEAF_KEY_PKCS1) },
  ])('turns a $name RSA key into a JWK', ({ pem }) => {
    const jwk = call('crypto.x509.parse_rsa_private_key', pem);
    expect(Object.keys(jwk).sort()).toEqual(['d', 'dp', 'dq', 'e', 'kty', 'n', 'p', 'q', 'qi']);
    expect(jwk.kty).toBe('RSA');
    expect(jwk.e).toBe('AQAB');
  });

  it('fails on input that is neither PEM nor base64', () => {
    expect(fails('crypto.x509.parse_rsa_private_key', 'invalid').message).toMatch(/illegal base64/);
    expect(fails('crypto.x509.parse_rsa_private_key', '').message).toBe('input PEM data was empty');
  });

  it('parses every private key of a bundle as Go values', () => {
    const keys = call('crypto.parse_private_keys', LEAF_KEY_PKCS1 + INTERMEDIATE_KEY_SEC1);
    expect(Object.keys(keys[0]).sort()).toEqual(['D', 'E', 'N', 'Precomputed', 'Primes']);
    expect(keys[0].Primes).toHaveLength(2);
    expect(Object.keys(keys[1]).sort()).toEqual(['Curve', 'D', 'X', 'Y']);
    expect(call('crypto.parse_private_keys', '')).toBeNull();
    expect(call('crypto.parse_private_keys', 'no pem here')).toEqual([]);
  });

  it('pairs a certificate with its key', () => {
    const pair = call('crypto.x509.parse_keypair', LEAF_CERT, LEAF_KEY_PKCS1);
    expect(pair.Certificate).toEqual([derB64(LEAF_CERT)]);
    expect(pair.Leaf.Subject.CommonName).toBe('svc.example.test');
    const fromBase64 = call('crypto.x509.parse_keypair', b64(LEAF_CERT), b64(LEAF_KEY_PKCS8));
    expect(fromBase64.Certificate).toEqual(pair.Certificate);
  });

  it('refuses a key that belongs to another certificate', () => {
    expect(fails('crypto.x509.parse_keypair', ROOT_CERT, INTERMEDIATE_KEY_SEC1).message).toBe(
      'tls: private key does not match public key',
    );
    expect(fails('crypto.x509.parse_keypair', LEAF_CERT, INTERMEDIATE_KEY_SEC1).message).toBe(
      'tls: private key type does not match public key type',
    );
  });
});
