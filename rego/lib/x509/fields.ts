/** The certificate fields that X.509 extensions fill, with Go's zero values. */
import { DerReader, TAG } from './asn1.js';
import { X509Error } from './name.js';
import type { GoURL } from './san.js';

export interface Extension {
  id: number[];
  critical: boolean;
  value: Uint8Array;
}

export interface ExtFields {
  keyUsage: number;
  basicConstraintsValid: boolean;
  isCA: boolean;
  maxPathLen: number;
  maxPathLenZero: boolean;
  subjectKeyId: Uint8Array | undefined;
  authorityKeyId: Uint8Array | undefined;
  extKeyUsage: number[] | null;
  unknownExtKeyUsage: number[][] | null;
  dnsNames: string[] | null;
  emailAddresses: string[] | null;
  ipAddresses: string[] | null;
  uris: GoURL[] | null;
  uriStrings: string[] | null;
  ocspServer: string[] | null;
  issuingCertificateURL: string[] | null;
  crlDistributionPoints: string[] | null;
  policyIdentifiers: number[][] | null;
  unhandledCritical: number[][] | null;
  nameConstraints: NameConstraints;
  inhibitAnyPolicy: number | undefined;
  requireExplicitPolicy: number | undefined;
  inhibitPolicyMapping: number | undefined;
  policyMappings: [string, string][] | null;
}

export interface NameConstraints {
  critical: boolean;
  permittedDNS: string[] | null;
  excludedDNS: string[] | null;
  permittedIP: { IP: string; Mask: string }[] | null;
  excludedIP: { IP: string; Mask: string }[] | null;
  permittedEmail: string[] | null;
  excludedEmail: string[] | null;
  permittedURI: string[] | null;
  excludedURI: string[] | null;
}

export function emptyExtFields(): ExtFields {
  return {
    keyUsage: 0,
    basicConstraintsValid: false,
    isCA: false,
    maxPathLen: 0,
    maxPathLenZero: false,
    subjectKeyId: undefined,
    authorityKeyId: undefined,
    extKeyUsage: null,
    unknownExtKeyUsage: null,
    dnsNames: null,
    emailAddresses: null,
    ipAddresses: null,
    uris: null,
    uriStrings: null,
    ocspServer: null,
    issuingCertificateURL: null,
    crlDistributionPoints: null,
    policyIdentifiers: null,
    unhandledCritical: null,
    nameConstraints: {
      critical: false,
      permittedDNS: null,
      excludedDNS: null,
      permittedIP: null,
      excludedIP: null,
      permittedEmail: null,
      excludedEmail: null,
      permittedURI: null,
      excludedURI: null,
    },
    inhibitAnyPolicy: undefined,
    requireExplicitPolicy: undefined,
    inhibitPolicyMapping: undefined,
    policyMappings: null,
  };
}

/** The content reader of a DER SEQUENCE that makes up a whole extension value. */
export function seqOf(value: Uint8Array, err: string): DerReader {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (!seq) throw new X509Error(err);
  return new DerReader(seq.content);
}
