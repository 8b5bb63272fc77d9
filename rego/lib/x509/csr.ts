/**
 * Go's x509.ParseCertificateRequest (PKCS #10), rendered as encoding/json of x509.CertificateRequest.
 */
import { DerReader, TAG, ctx, oidString, parseBitString, parseInteger, parseOID } from './asn1.js';
import { parseExtension, type Extension } from './ext.js';
import { PK_ALG, parseSPKI } from './keys.js';
import { X509Error, b64, nameJSON, parseName, type JSONish } from './name.js';
import { parseSAN } from './san.js';
import { extensionsJSON, need, signatureAlgorithm } from './certificate.js';
import { ipString } from '../gonet/index.js';

const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** The parse error Go's encoding/asn1 reports for CSR input that is not a SEQUENCE. */
function asn1StructureError(der: Uint8Array): X509Error {
  if (der.length < 2) return new X509Error('asn1: syntax error: data truncated');
  const b = der[0]!;
  const len = der[1]! & 0x80 ? -1 : der[1]!;
  return new X509Error(
    `asn1: structure error: tags don't match (16 vs {class:${b >> 6} tag:${b & 0x1f} length:${len} isCompound:${(b & 0x20) !== 0}}) ` +
      '{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} certificateRequest @2',
  );
}

/** Go's x509.ParseCertificateRequest, rendered as encoding/json of x509.CertificateRequest. */
export function certificateRequestJSON(der: Uint8Array): JSONish {
  const outer = new DerReader(der).read(TAG.SEQUENCE);
  if (!outer) throw asn1StructureError(der);
  const body = new DerReader(outer.content);
  const info = body.read(TAG.SEQUENCE);
  const sigAI = body.read(TAG.SEQUENCE);
  const sigBits = body.read(TAG.BIT_STRING);
  const sig = sigBits && parseBitString(sigBits.content);
  if (!info || !sigAI || !sig) throw new X509Error('asn1: structure error: malformed certificate request');
  if (!new DerReader(der).readAny() || outer.raw.length !== der.length) throw new X509Error('x509: trailing data');
  const r = new DerReader(info.content);
  const verEl = r.read(TAG.INTEGER);
  const version = verEl && parseInteger(verEl.content);
  const subjectEl = r.read(TAG.SEQUENCE);
  const spkiEl = r.read(TAG.SEQUENCE);
  const attrsEl = r.read(ctx(0, true));
  if (version === undefined || !subjectEl || !spkiEl || !attrsEl) {
    throw new X509Error('asn1: structure error: malformed certificate request info');
  }
  const subject = parseName(subjectEl.raw);
  const publicKey = parseSPKI(spkiEl.raw);
  const attributes: JSONish[] = [];
  const extensions: Extension[] = [];
  const ar = new DerReader(attrsEl.content);
  while (!ar.empty) {
    const a = ar.read(TAG.SEQUENCE);
    const aR = a && new DerReader(a.content);
    const t = aR?.read(TAG.OID);
    const arcs = t && parseOID(t.content);
    const values = aR?.read(TAG.SET);
    if (!arcs || !values) throw new X509Error('x509: malformed CSR attribute');
    const atvs: JSONish[] = [];
    if (oidString(arcs) === OID_EXTENSION_REQUEST) {
      const list = new DerReader(values.content).read(TAG.SEQUENCE);
      const lr = list && new DerReader(list.content);
      while (lr && !lr.empty) {
        const e = need(lr.read(TAG.SEQUENCE), 'x509: malformed extension');
        const parsed = parseExtension(e.content);
        extensions.push(parsed);
        // NB: Go unmarshals each extension into {Type, Value}; Value is the element after the OID.
        atvs.push({ Type: parsed.id, Value: parsed.critical ? true : b64(parsed.value) });
      }
    }
    attributes.push({ Type: arcs, Value: [atvs] });
  }
  const san = extensions.find((e) => oidString(e.id) === '2.5.29.17');
  const names = san ? parseSAN(san.value, ipString) : undefined;
  const list = <T>(xs: T[] | undefined): T[] | null => (xs && xs.length > 0 ? xs : null);
  return {
    Raw: b64(outer.raw),
    RawTBSCertificateRequest: b64(info.raw),
    RawSubjectPublicKeyInfo: b64(spkiEl.raw),
    RawSubject: b64(subjectEl.raw),
    Version: Number(version),
    Signature: b64(sig.bytes),
    SignatureAlgorithm: signatureAlgorithm(sigAI.content),
    PublicKeyAlgorithm: publicKey.alg,
    PublicKey: publicKey.alg === PK_ALG.unknown ? null : publicKey.json,
    Subject: nameJSON(subject),
    Attributes: attributes.length ? attributes : null,
    Extensions: extensionsJSON(extensions),
    ExtraExtensions: null,
    DNSNames: list(names?.dns),
    EmailAddresses: list(names?.email),
    IPAddresses: list(names?.ip),
    URIs: list(names?.uris) as unknown as JSONish,
  };
}
