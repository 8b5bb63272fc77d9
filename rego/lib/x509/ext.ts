/**
 * X.509 v3 extensions the way Go's processExtensions fills x509.Certificate: key usage, basic
 * constraints, SAN, EKU, key identifiers, AIA, CRL distribution points and certificate policies
 * (name and policy constraints live in constraints.ts).
 */
import { DerReader, TAG, bitAt, ctx, oidString, parseBitString, parseInteger, parseOID } from './asn1.js';
import { constraintExtension } from './constraints.js';
import { seqOf, type ExtFields, type Extension } from './fields.js';
import { X509Error } from './name.js';
import { parseSAN } from './san.js';
import { ipString } from '../gonet/index.js';

export { emptyExtFields, type ExtFields, type Extension } from './fields.js';

/** Go's x509.ExtKeyUsage values by OID. */
const EKU: Record<string, number> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

/** Reads one Extension SEQUENCE content. */
export function parseExtension(content: Uint8Array): Extension {
  const r = new DerReader(content);
  const oidEl = r.read(TAG.OID);
  const id = oidEl && parseOID(oidEl.content);
  if (!id) throw new X509Error('x509: malformed extension OID field');
  let critical = false;
  const crit = r.readOptional(TAG.BOOLEAN);
  if (crit === undefined) throw new X509Error('x509: malformed extension critical field');
  if (crit) {
    if (crit.content.length !== 1 || (crit.content[0] !== 0 && crit.content[0] !== 0xff)) {
      throw new X509Error('x509: malformed extension critical field');
    }
    critical = crit.content[0] === 0xff;
  }
  const val = r.read(TAG.OCTET_STRING);
  if (!val) throw new X509Error('x509: malformed extension value field');
  return { id, critical, value: val.content };
}

function uriList(r: DerReader, accept: (method: string) => boolean, into: { ocsp: string[]; issuers: string[] }): void {
  while (!r.empty) {
    const ad = r.read(TAG.SEQUENCE);
    if (!ad) throw new X509Error('x509: invalid authority info access');
    const ar = new DerReader(ad.content);
    const m = ar.read(TAG.OID);
    const method = m && parseOID(m.content);
    if (!method) throw new X509Error('x509: invalid authority info access');
    const loc = ar.readAny();
    if (!loc || loc.tag !== ctx(6) || !accept(oidString(method))) continue;
    const url = Buffer.from(loc.content).toString('latin1');
    if (oidString(method) === '1.3.6.1.5.5.7.48.1') into.ocsp.push(url);
    else into.issuers.push(url);
  }
}

function crlPoints(value: Uint8Array): string[] {
  const out: string[] = [];
  const r = seqOf(value, 'x509: invalid CRL distribution points');
  while (!r.empty) {
    const dp = r.read(TAG.SEQUENCE);
    if (!dp) throw new X509Error('x509: invalid CRL distribution point');
    const dpName = new DerReader(dp.content).readOptional(ctx(0, true));
    if (dpName === undefined) throw new X509Error('x509: invalid CRL distribution point');
    if (!dpName) continue;
    const full = new DerReader(dpName.content).readOptional(ctx(0, true));
    if (full === undefined) throw new X509Error('x509: invalid CRL distribution point');
    if (!full) continue;
    const names = new DerReader(full.content);
    while (!names.empty) {
      const n = names.readAny();
      if (!n) throw new X509Error('x509: invalid CRL distribution point');
      if (n.tag === ctx(6)) out.push(Buffer.from(n.content).toString('latin1'));
    }
  }
  return out;
}

/** Fills the certificate fields derived from its extensions (Go's processExtensions). */
export function processExtensions(exts: readonly Extension[], f: ExtFields): void {
  for (const e of exts) {
    let handled = false;
    const id = oidString(e.id);
    switch (id) {
      case '2.5.29.15': {
        const el = new DerReader(e.value).read(TAG.BIT_STRING);
        const bs = el && parseBitString(el.content);
        if (!bs) throw new X509Error('x509: invalid key usage');
        let usage = 0;
        for (let i = 0; i < 9; i++) if (bitAt(bs.padded, bs.bitLength, i)) usage |= 1 << i;
        f.keyUsage = usage;
        handled = true;
        break;
      }
      case '2.5.29.19': {
        const r = seqOf(e.value, 'x509: invalid basic constraints');
        let isCA = false;
        if (r.peekTag() === TAG.BOOLEAN) {
          const b = r.readAny();
          if (!b || b.content.length !== 1) throw new X509Error('x509: invalid basic constraints');
          isCA = b.content[0] === 0xff;
        }
        let maxPathLen = -1;
        if (r.peekTag() === TAG.INTEGER) {
          const i = r.readAny();
          const v = i && parseInteger(i.content);
          if (v === undefined) throw new X509Error('x509: invalid basic constraints');
          maxPathLen = Number(v);
        }
        f.isCA = isCA;
        f.maxPathLen = maxPathLen;
        f.basicConstraintsValid = true;
        f.maxPathLenZero = maxPathLen === 0;
        handled = true;
        break;
      }
      case '2.5.29.17': {
        const san = parseSAN(e.value, ipString);
        f.dnsNames = san.dns.length ? san.dns : null;
        f.emailAddresses = san.email.length ? san.email : null;
        f.ipAddresses = san.ip.length ? san.ip : null;
        f.uris = san.uris.length ? san.uris : null;
        f.uriStrings = san.uriStrings.length ? san.uriStrings : null;
        // An empty SAN that is critical stays unhandled, as in Go.
        handled = san.dns.length + san.email.length + san.ip.length + san.uris.length > 0 || !e.critical;
        break;
      }
      case '2.5.29.31':
        f.crlDistributionPoints = crlPoints(e.value);
        handled = true;
        break;
      case '2.5.29.35': {
        const r = seqOf(e.value, 'x509: invalid authority key identifier');
        const kid = r.readOptional(ctx(0));
        if (kid === undefined) throw new X509Error('x509: invalid authority key identifier');
        if (kid) f.authorityKeyId = kid.content;
        handled = true;
        break;
      }
      case '2.5.29.37': {
        const r = seqOf(e.value, 'x509: invalid extended key usages');
        while (!r.empty) {
          const o = r.read(TAG.OID);
          const arcs = o && parseOID(o.content);
          if (!arcs) throw new X509Error('x509: invalid extended key usages');
          const known = EKU[oidString(arcs)];
          if (known !== undefined) (f.extKeyUsage ??= []).push(known);
          else (f.unknownExtKeyUsage ??= []).push(arcs);
        }
        handled = true;
        break;
      }
      case '2.5.29.14': {
        const o = new DerReader(e.value).read(TAG.OCTET_STRING);
        if (!o) throw new X509Error('x509: invalid subject key identifier');
        f.subjectKeyId = o.content;
        handled = true;
        break;
      }
      case '2.5.29.32': {
        const r = seqOf(e.value, 'x509: invalid certificate policies');
        const ids: number[][] = [];
        while (!r.empty) {
          const pi = r.read(TAG.SEQUENCE);
          const o = pi && new DerReader(pi.content).read(TAG.OID);
          const arcs = o && parseOID(o.content);
          if (!arcs) throw new X509Error('x509: invalid certificate policies');
          ids.push(arcs);
        }
        f.policyIdentifiers = ids;
        handled = true;
        break;
      }
      case '1.3.6.1.5.5.7.1.1': {
        const into = { ocsp: [] as string[], issuers: [] as string[] };
        uriList(
          seqOf(e.value, 'x509: invalid authority info access'),
          (m) => m === '1.3.6.1.5.5.7.48.1' || m === '1.3.6.1.5.5.7.48.2',
          into,
        );
        if (into.ocsp.length) f.ocspServer = into.ocsp;
        if (into.issuers.length) f.issuingCertificateURL = into.issuers;
        handled = true;
        break;
      }
      default:
        handled = constraintExtension(id, e, f);
        break;
    }
    if (e.critical && !handled) (f.unhandledCritical ??= []).push(e.id);
  }
}
