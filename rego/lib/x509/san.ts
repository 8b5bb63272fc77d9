/**
 * Subject alternative names as Go's parseSANExtension reads them, with URIs shaped like encoding/json
 * of Go's url.URL.
 */
import { DerReader, TAG } from './asn1.js';
import { X509Error } from './name.js';

/** The parts of Go's url.URL that encoding/json shows. */
export interface GoURL {
  Scheme: string;
  Opaque: string;
  User: null;
  Host: string;
  Path: string;
  RawPath: string;
  OmitHost: boolean;
  ForceQuery: boolean;
  RawQuery: string;
  Fragment: string;
  RawFragment: string;
}

/** A pragmatic url.Parse for SAN URIs; `text` is what URL.String() gives back. */
export function parseURL(raw: string): { url: GoURL; text: string } {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = decodeURIComponentSafe(rest.slice(hash + 1));
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const sm = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (sm) {
    scheme = sm[1]!.toLowerCase();
    rest = rest.slice(sm[0].length);
  } else if (rest.startsWith(':')) {
    throw new X509Error('missing protocol scheme');
  }
  let rawQuery = '';
  let forceQuery = false;
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    forceQuery = rawQuery === '';
    rest = rest.slice(0, q);
  }
  const url: GoURL = {
    Scheme: scheme,
    Opaque: '',
    User: null,
    Host: '',
    Path: '',
    RawPath: '',
    OmitHost: false,
    ForceQuery: forceQuery,
    RawQuery: rawQuery,
    Fragment: fragment,
    RawFragment: '',
  };
  if (scheme !== '' && !rest.startsWith('/')) {
    url.Opaque = rest;
  } else {
    if (rest.startsWith('//')) {
      const auth = rest.slice(2);
      const slash = auth.indexOf('/');
      url.Host = slash < 0 ? auth : auth.slice(0, slash);
      rest = slash < 0 ? '' : auth.slice(slash);
    }
    url.Path = decodeURIComponentSafe(rest);
    if (url.Path !== rest) url.RawPath = rest;
  }
  return { url, text: raw };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface GeneralNames {
  dns: string[];
  email: string[];
  ip: string[];
  uris: GoURL[];
  uriStrings: string[];
}

/** Go's parseSANExtension over the SAN extension value. */
export function parseSAN(value: Uint8Array, ipString: (b: Uint8Array) => string): GeneralNames {
  const out: GeneralNames = { dns: [], email: [], ip: [], uris: [], uriStrings: [] };
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (!seq) throw new X509Error('x509: invalid subject alternative names');
  const r = new DerReader(seq.content);
  while (!r.empty) {
    const gn = r.readAny();
    if (!gn) throw new X509Error('x509: invalid subject alternative name');
    const text = Buffer.from(gn.content).toString('latin1');
    const ascii = !/[^\x00-\x7f]/.test(text);
    switch (gn.tag & 0x1f) {
      case 1:
        if (!ascii) throw new X509Error('x509: SAN rfc822Name is malformed');
        out.email.push(text);
        break;
      case 2:
        if (!ascii) throw new X509Error('x509: SAN dNSName is malformed');
        out.dns.push(text);
        break;
      case 6: {
        if (!ascii) throw new X509Error('x509: SAN uniformResourceIdentifier is malformed');
        const { url, text: s } = parseURL(text);
        out.uris.push(url);
        out.uriStrings.push(s);
        break;
      }
      case 7:
        if (gn.content.length !== 4 && gn.content.length !== 16) {
          throw new X509Error(`x509: cannot parse IP address of length ${gn.content.length}`);
        }
        out.ip.push(ipString(gn.content));
        break;
    }
  }
  return out;
}
