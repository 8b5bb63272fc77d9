/**
 * Certificate and key input as OPA's crypto.* builtins read it (v1/topdown/crypto.go): PEM or base64
 * DER certificate strings, private-key PEM bundles, and Go's tls.X509KeyPair.
 */
import { decodeStdBase64, pemDecode, pemEncode, startsWithBytes, toBytes } from '../goencoding/index.js';
import { parseAnyPrivateKey, parseECPrivate, parsePKCS1, parsePKCS8, type PrivateKey } from './keys.js';
import { X509Error, b64, type JSONish } from './name.js';
import { certificateJSON, parseCertificate, parseCertificates, type Certificate } from './certificate.js';

function certsFromPem(data: Uint8Array): Certificate[] {
  const chunks: Uint8Array[] = [];
  let rest = data;
  while (rest.length > 0) {
    const { block, rest: next } = pemDecode(rest);
    if (!block) break;
    if (block.type !== 'CERTIFICATE') throw new X509Error(`PEM block type is '${block.type}', expected CERTIFICATE`);
    chunks.push(block.bytes);
    rest = next;
  }
  return parseCertificates(Buffer.concat(chunks));
}

/** OPA's getX509CertsFromString: PEM, base64 PEM, or base64 DER. */
export function certsFromString(s: string): Certificate[] {
  if (s.startsWith('-----BEGIN')) return certsFromPem(toBytes(s));
  const der = decodeStdBase64(s);
  if (startsWithBytes(der, '-----BEGIN')) return certsFromPem(der);
  return parseCertificates(der);
}

/** OPA's getPrivateKeysFromPEMData. */
export function privateKeysFromPEM(input: string): PrivateKey[] {
  let data: Uint8Array;
  try {
    data = decodeStdBase64(input);
  } catch {
    data = toBytes(input);
  }
  const keys: PrivateKey[] = [];
  let rest = data;
  while (rest.length > 0) {
    const before = rest.length;
    const { block, rest: next } = pemDecode(rest);
    rest = next;
    if (!block && rest.length === 0) break;
    if (before === rest.length) break;
    if (!block) continue;
    if (block.type === 'RSA PRIVATE KEY') keys.push(parsePKCS1(block.bytes));
    else if (block.type === 'PRIVATE KEY') keys.push(parsePKCS8(block.bytes));
    else if (block.type === 'EC PRIVATE KEY') keys.push(parseECPrivate(block.bytes));
  }
  return keys;
}

const BEGIN = '-----BEGIN ';

/** Go's tls.X509KeyPair after OPA's base64/DER normalisation, as encoding/json of tls.Certificate. */
export function keyPairJSON(certInput: string, keyInput: string): JSONish {
  let certPEM = toBytes(certInput);
  let keyPEM = toBytes(keyInput);
  if (!startsWithBytes(certPEM, BEGIN)) certPEM = decodeStdBase64(certInput);
  if (!startsWithBytes(keyPEM, BEGIN)) keyPEM = decodeStdBase64(keyInput);
  if (!startsWithBytes(certPEM, BEGIN)) certPEM = toBytes(pemEncode('CERTIFICATE', certPEM));
  if (!startsWithBytes(keyPEM, '-----BEGIN')) keyPEM = toBytes(pemEncode('PRIVATE KEY', keyPEM));

  const ders: Uint8Array[] = [];
  const skipped: string[] = [];
  for (let rest = certPEM; ;) {
    const { block, rest: next } = pemDecode(rest);
    if (!block) break;
    if (block.type === 'CERTIFICATE') ders.push(block.bytes);
    else skipped.push(block.type);
    rest = next;
  }
  if (ders.length === 0) {
    if (skipped.length === 0) throw new X509Error('tls: failed to find any PEM data in certificate input');
    if (skipped.length === 1 && skipped[0]!.endsWith('PRIVATE KEY')) {
      throw new X509Error(
        'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched',
      );
    }
    throw new X509Error(
      `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`,
    );
  }
  const skippedKeys: string[] = [];
  let keyDER: Uint8Array | undefined;
  for (let rest = keyPEM; ;) {
    const { block, rest: next } = pemDecode(rest);
    if (!block) {
      if (skippedKeys.length === 0) throw new X509Error('tls: failed to find any PEM data in key input');
      if (skippedKeys.length === 1 && skippedKeys[0] === 'CERTIFICATE') {
        throw new X509Error('tls: found a certificate rather than a key in the PEM for the private key');
      }
      throw new X509Error(
        `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${skippedKeys.join(' ')}]`,
      );
    }
    if (block.type === 'PRIVATE KEY' || block.type.endsWith(' PRIVATE KEY')) {
      keyDER = block.bytes;
      break;
    }
    skippedKeys.push(block.type);
    rest = next;
  }
  const leaf = parseCertificate(ders[0]!);
  const priv = parseAnyPrivateKey(keyDER);
  const pubKind = leaf.publicKey.id.split(':')[0];
  const privKind = priv.id.split(':')[0];
  if (!['rsa', 'ec', 'ed'].includes(pubKind ?? '')) throw new X509Error('tls: unknown public key algorithm');
  if (pubKind !== privKind) throw new X509Error('tls: private key type does not match public key type');
  if (leaf.publicKey.id !== priv.id) throw new X509Error('tls: private key does not match public key');
  return {
    Certificate: ders.map((d) => b64(d)),
    PrivateKey: priv.json,
    SupportedSignatureAlgorithms: null,
    OCSPStaple: null,
    SignedCertificateTimestamps: null,
    Leaf: certificateJSON(leaf, false),
  };
}
