import { describe, expect, it } from 'vitest';
import {
  VerifyError,
  X509Error,
  certificateJSON,
  certificateRequestJSON,
  certsFromString,
  keyPairJSON,
  privateKeysFromPEM,
  verifyChain,
} from './index.js';
import {
  INTERMEDIATE_CERT,
  INTERMEDIATE_KEY_SEC1,
  LEAF_CERT,
  LEAF_CSR,
  LEAF_KEY_PKCS1,
  LEAF_KEY_PKCS8,
  ROOT_CERT,
} from './test/fixtures.js';

type JSONObject = Record<string, unknown>;
const derOf = (pem: string): Buffer =>
  Buffer.from(
    pem
      .split('\n')
      .filter((l) => !l.startsWith('-----'))
      .join(''),
    'base64',
  );

describe('certificates', () => {
  it('renders a certificate as encoding/json of x509.Certificate', () => {
    const [leaf] = certsFromString(LEAF_CERT);
    const json = certificateJSON(leaf!, true) as JSONObject;
    expect((json.Subject as JSONObject).CommonName).toBe('svc.example.test');
    expect(json.DNSNames).toEqual(['svc.example.test']);
    expect(json.IPAddresses).toEqual(['10.0.0.7']);
    expect(json.NotBefore).toBe('2026-11-21T05:17:27Z');
    expect(json.IsCA).toBe(false);
  });

  it('reports malformed DER with Go’s text', () => {
    const bad = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    expect(() => certsFromString(bad)).toThrow(X509Error);
    expect(() => certsFromString(bad)).toThrow('x509: malformed certificate');
  });

  it('verifies the chain root first, leaf last, within its validity', () => {
    const chain = certsFromString(ROOT_CERT + INTERMEDIATE_CERT + LEAF_CERT);
    expect(verifyChain(chain, { currentTimeNs: 1_900_000_000_000_000_000n, keyUsages: [] })).toHaveLength(3);
    expect(() => verifyChain(chain, { currentTimeNs: 1_000_000_000_000_000_000n, keyUsages: [] })).toThrow(VerifyError);
  });
});

describe('keys and requests', () => {
  it('reads PKCS #1 and PKCS #8 private keys', () => {
    expect(privateKeysFromPEM(LEAF_KEY_PKCS8)).toHaveLength(1);
    expect((privateKeysFromPEM(LEAF_KEY_PKCS1)[0]!.json as JSONObject).E).toBe(65537n);
  });

  it('parses a certificate request', () => {
    const csr = certificateRequestJSON(derOf(LEAF_CSR)) as JSONObject;
    expect((csr.Subject as JSONObject).CommonName).toBe('svc.example.test');
    expect(csr.DNSNames).toEqual(['svc.example.test']);
  });

  it('pairs a certificate with its key as tls.X509KeyPair does', () => {
    const pair = keyPairJSON(LEAF_CERT, LEAF_KEY_PKCS8) as JSONObject;
    expect(pair.Certificate).toHaveLength(1);
    expect(() => keyPairJSON(LEAF_CERT, INTERMEDIATE_KEY_SEC1)).toThrow(
      'tls: private key type does not match public key type',
    );
  });
});
