/**
 * Pieces of X.509 shared by certificates and CSRs, shaped like Go's JSON encoding of them:
 * pkix.Name and validity times, plus the error type and JSON shape every x509 module uses.
 */
import { DerReader, TAG, parseOID } from './asn1.js';
import { fixedZone, formatTime, unixFromCivil } from '../gotime/index.js';

export class X509Error extends Error {}

export type JSONish = null | boolean | number | bigint | string | JSONish[] | { [k: string]: JSONish };

export function b64(b: Uint8Array | undefined): string | null {
  return b === undefined ? null : Buffer.from(b).toString('base64');
}

export interface Attribute {
  type: number[];
  value: string;
}

/** Go's parseASN1String for directory-string values. */
function asn1String(tag: number, content: Uint8Array): string {
  const buf = Buffer.from(content);
  switch (tag) {
    case TAG.T61:
      return buf.toString('latin1');
    case TAG.PRINTABLE: {
      const s = buf.toString('latin1');
      if (!/^[A-Za-z0-9 '()+,\-./:=?*&]*$/.test(s)) throw new X509Error('invalid PrintableString');
      return s;
    }
    case TAG.UTF8: {
      const s = buf.toString('utf8');
      if (!Buffer.from(s, 'utf8').equals(buf)) throw new X509Error('invalid UTF-8 string');
      return s;
    }
    case TAG.BMP: {
      if (buf.length % 2 !== 0) throw new X509Error('invalid BMPString');
      let s = '';
      for (let i = 0; i < buf.length; i += 2) s += String.fromCharCode(buf.readUInt16BE(i));
      return s.endsWith('\u0000') ? s.slice(0, -1) : s;
    }
    case TAG.IA5: {
      const s = buf.toString('latin1');
      if (/[^\x00-\x7f]/.test(s)) throw new X509Error('invalid IA5String');
      return s;
    }
    case TAG.NUMERIC: {
      const s = buf.toString('latin1');
      if (!/^[0-9 ]*$/.test(s)) throw new X509Error('invalid NumericString');
      return s;
    }
    default:
      throw new X509Error(`unsupported string type: ${tag}`);
  }
}

/** Go's x509 parseName over the content of a Name SEQUENCE: the flattened attributes. */
export function parseName(nameSeq: Uint8Array): Attribute[] {
  const outer = new DerReader(nameSeq).read(TAG.SEQUENCE);
  if (!outer) throw new X509Error('x509: invalid RDNSequence');
  const rdns = new DerReader(outer.content);
  const out: Attribute[] = [];
  while (!rdns.empty) {
    const set = rdns.read(TAG.SET);
    if (!set) throw new X509Error('x509: invalid RDNSequence');
    const atvs = new DerReader(set.content);
    while (!atvs.empty) {
      const atv = atvs.read(TAG.SEQUENCE);
      if (!atv) throw new X509Error('x509: invalid RDNSequence: invalid attribute');
      const r = new DerReader(atv.content);
      const oidEl = r.read(TAG.OID);
      const type = oidEl && parseOID(oidEl.content);
      if (!type) throw new X509Error('x509: invalid RDNSequence: invalid attribute type');
      const v = r.readAny();
      if (!v) throw new X509Error('x509: invalid RDNSequence: invalid attribute value');
      try {
        out.push({ type, value: asn1String(v.tag, v.content) });
      } catch (e) {
        throw new X509Error(`x509: invalid RDNSequence: invalid attribute value: ${(e as Error).message}`);
      }
    }
  }
  return out;
}

const NAME_FIELDS: Record<number, string> = {
  6: 'Country',
  10: 'Organization',
  11: 'OrganizationalUnit',
  7: 'Locality',
  8: 'Province',
  9: 'StreetAddress',
  17: 'PostalCode',
};

/** Go's pkix.Name after FillFromRDNSequence, as JSON. */
export function nameJSON(attrs: readonly Attribute[]): JSONish {
  const lists: Record<string, string[] | null> = {
    Country: null,
    Organization: null,
    OrganizationalUnit: null,
    Locality: null,
    Province: null,
    StreetAddress: null,
    PostalCode: null,
  };
  let serial = '';
  let cn = '';
  for (const a of attrs) {
    const t = a.type;
    if (t.length !== 4 || t[0] !== 2 || t[1] !== 5 || t[2] !== 4) continue;
    if (t[3] === 3) cn = a.value;
    else if (t[3] === 5) serial = a.value;
    else {
      const field = NAME_FIELDS[t[3]!];
      if (field) (lists[field] ??= []).push(a.value);
    }
  }
  return {
    ...lists,
    SerialNumber: serial,
    CommonName: cn,
    Names: attrs.length === 0 ? null : attrs.map((a) => ({ Type: a.type, Value: a.value })),
    ExtraNames: null,
  };
}

/** UTCTime or GeneralizedTime to Unix seconds and the UTC offset it was written with. */
export function parseTime(tag: number, content: Uint8Array): { unix: bigint; offset: number } {
  const s = Buffer.from(content).toString('latin1');
  const m =
    tag === TAG.UTC_TIME
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|[+-]\d{4})$/.exec(s)
      : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|[+-]\d{4})$/.exec(s);
  if (!m) throw new X509Error(tag === TAG.UTC_TIME ? 'x509: malformed UTCTime' : 'x509: malformed GeneralizedTime');
  let year = Number(m[1]);
  if (tag === TAG.UTC_TIME) year += year < 50 ? 2000 : 1900;
  const [mo, d, h, mi, se] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
    throw new X509Error('x509: malformed validity');
  let offset = 0;
  if (m[7] !== 'Z') {
    const z = m[7]!;
    offset = (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5))) * 60 * (z[0] === '-' ? -1 : 1);
  }
  const local = unixFromCivil(BigInt(year), BigInt(mo), BigInt(d), BigInt(h), BigInt(mi), BigInt(se));
  return { unix: local - BigInt(offset), offset };
}

/** Go's time.Time JSON form (RFC 3339 with nanoseconds trimmed). */
export function timeJSON(t: { unix: bigint; offset: number }): string {
  return formatTime(t.unix * 1_000_000_000n, fixedZone('', t.offset), '2006-01-02T15:04:05.999999999Z07:00');
}
