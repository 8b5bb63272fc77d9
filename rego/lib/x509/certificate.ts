/**
 * X.509 certificates parsed as Go's crypto/x509 does, with the same error texts, and rendered as the
 * JSON that encoding/json makes of x509.Certificate.
 */
import { DerReader, TAG, ctx, oidString, parseBitString, parseInteger, parseOID } from './asn1.js';
import { emptyExtFields, parseExtension, processExtensions, type ExtFields, type Extension } from './ext.js';
import { parseSPKI, type PublicKey } from './keys.js';
import { X509Error, b64, nameJSON, parseName, parseTime, timeJSON, type Attribute, type JSONish } from './name.js';

/** Go's x509.SignatureAlgorithm by OID (RSASSA-PSS resolved from its parameters). */
const SIG_ALGS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1,
  '1.2.840.113549.1.1.4': 2,
  '1.2.840.113549.1.1.5': 3,
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4,
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7,
  '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9,
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16,
};
const OID_PSS = '1.2.840.113549.1.1.10';
const PSS_BY_HASH: Record<string, number> = {
  '2.16.840.1.101.3.4.2.1': 13,
  '2.16.840.1.101.3.4.2.2': 14,
  '2.16.840.1.101.3.4.2.3': 15,
};

/** Signature algorithms Go refuses when verifying chains (MD2, MD5, SHA-1). */
export const INSECURE_SIG_ALGS = new Set([1, 2, 3, 7, 9]);

export function signatureAlgorithm(ai: Uint8Array): number {
  const r = new DerReader(ai);
  const o = r.read(TAG.OID);
  const arcs = o && parseOID(o.content);
  if (!arcs) throw new X509Error('x509: malformed OID');
  const oid = oidString(arcs);
  if (oid !== OID_PSS) return SIG_ALGS[oid] ?? 0;
  // RSASSA-PSS-params: [0] hashAlgorithm (default SHA-1, which Go does not support here).
  const params = r.read(TAG.SEQUENCE);
  const hashWrap = params && new DerReader(params.content).read(ctx(0, true));
  const hashAI = hashWrap && new DerReader(hashWrap.content).read(TAG.SEQUENCE);
  const hashOID = hashAI && new DerReader(hashAI.content).read(TAG.OID);
  const harcs = hashOID && parseOID(hashOID.content);
  return harcs ? (PSS_BY_HASH[oidString(harcs)] ?? 0) : 0;
}

export interface Certificate {
  raw: Uint8Array;
  rawTBS: Uint8Array;
  rawSPKI: Uint8Array;
  rawSubject: Uint8Array;
  rawIssuer: Uint8Array;
  signature: Uint8Array;
  sigAlg: number;
  publicKey: PublicKey;
  version: number;
  serial: bigint;
  issuer: Attribute[];
  subject: Attribute[];
  notBefore: { unix: bigint; offset: number };
  notAfter: { unix: bigint; offset: number };
  extensions: Extension[];
  ext: ExtFields;
}

export function need<T>(v: T | undefined | null, msg: string): T {
  if (v === undefined || v === null) throw new X509Error(msg);
  return v;
}

/** Go's x509 parseCertificate for the first certificate in `der`. */
export function parseCertificate(der: Uint8Array): Certificate {
  const input = new DerReader(der);
  const certEl = need(input.read(TAG.SEQUENCE), 'x509: malformed certificate');
  const body = new DerReader(certEl.content);
  const tbsEl = need(body.read(TAG.SEQUENCE), 'x509: malformed tbs certificate');
  const tbs = new DerReader(tbsEl.content);
  let version = 0;
  const v = tbs.readOptional(ctx(0, true));
  if (v === undefined) throw new X509Error('x509: malformed version');
  if (v) {
    const i = new DerReader(v.content).read(TAG.INTEGER);
    const n = i && parseInteger(i.content);
    if (n === undefined) throw new X509Error('x509: malformed version');
    if (n < 0n) throw new X509Error('x509: malformed version');
    version = Number(n);
  }
  version++;
  if (version > 3) throw new X509Error('x509: invalid version');
  const serialEl = need(tbs.read(TAG.INTEGER), 'x509: malformed serial number');
  const serial = need(parseInteger(serialEl.content), 'x509: malformed serial number');
  const sigAI = need(tbs.read(TAG.SEQUENCE), 'x509: malformed signature algorithm identifier');
  const outerAI = need(body.read(TAG.SEQUENCE), 'x509: malformed algorithm identifier');
  if (!Buffer.from(outerAI.content).equals(Buffer.from(sigAI.content))) {
    throw new X509Error("x509: inner and outer signature algorithm identifiers don't match");
  }
  const sigAlg = signatureAlgorithm(sigAI.content);
  const issuerEl = need(tbs.read(TAG.SEQUENCE), 'x509: malformed issuer');
  const issuer = parseName(issuerEl.raw);
  const validity = need(tbs.read(TAG.SEQUENCE), 'x509: malformed validity');
  const vr = new DerReader(validity.content);
  const nb = need(vr.readAny(), 'x509: malformed validity');
  const na = need(vr.readAny(), 'x509: malformed validity');
  const notBefore = parseTime(nb.tag, nb.content);
  const notAfter = parseTime(na.tag, na.content);
  const subjectEl = need(tbs.read(TAG.SEQUENCE), 'x509: malformed issuer');
  const subject = parseName(subjectEl.raw);
  const spkiEl = need(tbs.read(TAG.SEQUENCE), 'x509: malformed spki');
  const publicKey = parseSPKI(spkiEl.raw);
  const extensions: Extension[] = [];
  const ext = emptyExtFields();
  if (version > 1) {
    if (tbs.readOptional(ctx(1)) === undefined) throw new X509Error('x509: malformed issuerUniqueID');
    if (tbs.readOptional(ctx(2)) === undefined) throw new X509Error('x509: malformed subjectUniqueID');
    if (version === 3) {
      const exts = tbs.readOptional(ctx(3, true));
      if (exts === undefined) throw new X509Error('x509: malformed extensions');
      if (exts) {
        const seq = need(new DerReader(exts.content).read(TAG.SEQUENCE), 'x509: malformed extensions');
        const er = new DerReader(seq.content);
        const seen = new Set<string>();
        while (!er.empty) {
          const e = need(er.read(TAG.SEQUENCE), 'x509: malformed extension');
          const parsed = parseExtension(e.content);
          const id = oidString(parsed.id);
          if (seen.has(id)) throw new X509Error(`x509: certificate contains duplicate extension with OID "${id}"`);
          seen.add(id);
          extensions.push(parsed);
        }
        processExtensions(extensions, ext);
      }
    }
  }
  const sigEl = body.read(TAG.BIT_STRING);
  const sig = sigEl && parseBitString(sigEl.content);
  if (!sig) throw new X509Error('x509: malformed signature');
  return {
    raw: certEl.raw,
    rawTBS: tbsEl.raw,
    rawSPKI: spkiEl.raw,
    rawSubject: subjectEl.raw,
    rawIssuer: issuerEl.raw,
    signature: sig.bytes,
    sigAlg,
    publicKey,
    version,
    serial,
    issuer,
    subject,
    notBefore,
    notAfter,
    extensions,
    ext,
  };
}

/** Go's x509.ParseCertificates: concatenated DER certificates. */
export function parseCertificates(der: Uint8Array): Certificate[] {
  const out: Certificate[] = [];
  let rest = der;
  while (rest.length > 0) {
    const c = parseCertificate(rest);
    out.push(c);
    rest = rest.subarray(c.raw.length);
  }
  return out;
}

export function extensionsJSON(exts: readonly Extension[]): JSONish {
  return exts.length === 0 ? null : exts.map((e) => ({ Id: e.id, Critical: e.critical, Value: b64(e.value) }));
}

/** encoding/json of x509.Certificate (Go 1.24 field set), plus OPA's URIStrings when asked. */
export function certificateJSON(c: Certificate, withURIStrings: boolean): JSONish {
  const x = c.ext;
  const nc = x.nameConstraints;
  const out: Record<string, JSONish> = {
    Raw: b64(c.raw),
    RawTBSCertificate: b64(c.rawTBS),
    RawSubjectPublicKeyInfo: b64(c.rawSPKI),
    RawSubject: b64(c.rawSubject),
    RawIssuer: b64(c.rawIssuer),
    Signature: b64(c.signature),
    SignatureAlgorithm: c.sigAlg,
    PublicKeyAlgorithm: c.publicKey.alg,
    PublicKey: c.publicKey.json,
    Version: c.version,
    SerialNumber: c.serial,
    Issuer: nameJSON(c.issuer),
    Subject: nameJSON(c.subject),
    NotBefore: timeJSON(c.notBefore),
    NotAfter: timeJSON(c.notAfter),
    KeyUsage: x.keyUsage,
    Extensions: extensionsJSON(c.extensions),
    ExtraExtensions: null,
    UnhandledCriticalExtensions: x.unhandledCritical,
    ExtKeyUsage: x.extKeyUsage,
    UnknownExtKeyUsage: x.unknownExtKeyUsage,
    BasicConstraintsValid: x.basicConstraintsValid,
    IsCA: x.isCA,
    MaxPathLen: x.maxPathLen,
    MaxPathLenZero: x.maxPathLenZero,
    SubjectKeyId: b64(x.subjectKeyId),
    AuthorityKeyId: b64(x.authorityKeyId),
    OCSPServer: x.ocspServer,
    IssuingCertificateURL: x.issuingCertificateURL,
    DNSNames: x.dnsNames,
    EmailAddresses: x.emailAddresses,
    IPAddresses: x.ipAddresses,
    URIs: x.uris as unknown as JSONish,
    PermittedDNSDomainsCritical: nc.critical,
    PermittedDNSDomains: nc.permittedDNS,
    ExcludedDNSDomains: nc.excludedDNS,
    PermittedIPRanges: nc.permittedIP,
    ExcludedIPRanges: nc.excludedIP,
    PermittedEmailAddresses: nc.permittedEmail,
    ExcludedEmailAddresses: nc.excludedEmail,
    PermittedURIDomains: nc.permittedURI,
    ExcludedURIDomains: nc.excludedURI,
    CRLDistributionPoints: x.crlDistributionPoints,
    PolicyIdentifiers: x.policyIdentifiers,
    Policies: x.policyIdentifiers && x.policyIdentifiers.map((p) => p.join('.')),
    InhibitAnyPolicy: x.inhibitAnyPolicy ?? 0,
    InhibitAnyPolicyZero: x.inhibitAnyPolicy === 0,
    InhibitPolicyMapping: x.inhibitPolicyMapping ?? 0,
    InhibitPolicyMappingZero: x.inhibitPolicyMapping === 0,
    RequireExplicitPolicy: x.requireExplicitPolicy ?? 0,
    RequireExplicitPolicyZero: x.requireExplicitPolicy === 0,
    PolicyMappings:
      x.policyMappings && x.policyMappings.map(([a, b]) => ({ IssuerDomainPolicy: a, SubjectDomainPolicy: b })),
  };
  if (withURIStrings) out.URIStrings = x.uriStrings;
  return out;
}
