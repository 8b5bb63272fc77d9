/**
 * Go's Certificate.Verify for OPA's chain builtins: the first certificate is the root, the last the
 * leaf, the rest intermediates. Chains are built leaf-upwards by issuer name and signature, checked
 * for validity period, CA-ness, path length, host name and extended key usage. Name constraints are
 * parsed but not enforced.
 */
import { X509Certificate } from 'node:crypto';
import { INSECURE_SIG_ALGS, type Certificate } from './certificate.js';
import { PK_ALG } from './keys.js';
import { parseIP } from '../gonet/index.js';

export interface VerifyOptions {
  dnsName?: string;
  /** Unix nanoseconds. */
  currentTimeNs: bigint;
  /** Go ExtKeyUsage values; empty means ServerAuth. */
  keyUsages: number[];
}

export class VerifyError extends Error {}

const KEY_USAGE_CERT_SIGN = 1 << 5;
const EKU_ANY = 0;
const EKU_SERVER_AUTH = 1;
// Go caps signature checks while building chains.
const MAX_SIGNATURE_CHECKS = 100;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

/** Go's CheckSignatureFrom: parent must be allowed to sign, and its key must verify the child. */
function signedBy(child: Certificate, parent: Certificate): boolean {
  if (
    (parent.version === 3 && !parent.ext.basicConstraintsValid) ||
    (parent.ext.basicConstraintsValid && !parent.ext.isCA)
  ) {
    return false;
  }
  if (parent.ext.keyUsage !== 0 && (parent.ext.keyUsage & KEY_USAGE_CERT_SIGN) === 0) return false;
  if (parent.publicKey.alg === PK_ALG.unknown || !parent.publicKey.key) return false;
  if (child.sigAlg === 0 || INSECURE_SIG_ALGS.has(child.sigAlg)) return false;
  try {
    return new X509Certificate(Buffer.from(child.raw)).verify(parent.publicKey.key);
  } catch {
    return false;
  }
}

type CertKind = 'leaf' | 'intermediate' | 'root';

/** Go's isValid for one certificate at its place in the chain. */
function isValid(c: Certificate, kind: CertKind, chain: readonly Certificate[], opts: VerifyOptions): boolean {
  if (c.ext.unhandledCritical) return false;
  if (chain.length > 0 && !sameBytes(chain[chain.length - 1]!.rawIssuer, c.rawSubject)) return false;
  const now = opts.currentTimeNs / 1_000_000_000n;
  if (now < c.notBefore.unix || now > c.notAfter.unix) return false;
  if (kind === 'intermediate' && (!c.ext.basicConstraintsValid || !c.ext.isCA)) return false;
  if (c.ext.basicConstraintsValid && c.ext.maxPathLen >= 0 && chain.length - 1 > c.ext.maxPathLen) return false;
  return true;
}

function matchHostname(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase().replace(/\.$/, '');
  if (p === '' || h === '') return false;
  const pp = p.split('.');
  const hp = h.split('.');
  if (pp.length !== hp.length) return false;
  return pp.every((part, i) => (i === 0 && part === '*') || part === hp[i]);
}

/** Go's VerifyHostname: IP SANs for IP literals, DNS SANs (with a leading wildcard) otherwise. */
function verifyHostname(c: Certificate, host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const ip = parseIP(bare);
  if (ip) return (c.ext.ipAddresses ?? []).some((a) => sameBytes(parseIP(a) ?? new Uint8Array(), ip));
  return (c.ext.dnsNames ?? []).some((n) => matchHostname(n, host));
}

function chainAllowsUsages(chain: readonly Certificate[], wanted: readonly number[]): boolean {
  const usages = [...wanted];
  let remaining = usages.length;
  for (let i = chain.length - 1; i >= 0; i--) {
    const c = chain[i]!;
    const eku = c.ext.extKeyUsage ?? [];
    if (eku.length === 0 && !c.ext.unknownExtKeyUsage) continue;
    if (eku.includes(EKU_ANY)) continue;
    for (let u = 0; u < usages.length; u++) {
      if (usages[u] === -1 || eku.includes(usages[u]!)) continue;
      usages[u] = -1;
      if (--remaining === 0) return false;
    }
  }
  return true;
}

/** The first verified chain, leaf first; throws VerifyError when none exists. */
export function verifyChain(certs: readonly Certificate[], opts: VerifyOptions): Certificate[] {
  if (certs.length < 2) throw new VerifyError('operand 1 must supply at least two certificates to be able to verify');
  const root = certs[0]!;
  const intermediates = certs.slice(1, -1);
  const leaf = certs[certs.length - 1]!;
  if (!isValid(leaf, 'leaf', [], opts)) throw new VerifyError('x509: certificate is not valid');
  if (opts.dnsName !== undefined && opts.dnsName !== '' && !verifyHostname(leaf, opts.dnsName)) {
    throw new VerifyError(`x509: certificate is not valid for ${opts.dnsName}`);
  }
  const chains: Certificate[][] = [];
  if (sameBytes(leaf.raw, root.raw)) chains.push([leaf]);
  else {
    let checks = 0;
    const build = (chain: Certificate[]): void => {
      const c = chain[chain.length - 1]!;
      const candidates: [Certificate, CertKind][] = [
        [root, 'root'],
        ...intermediates.map((i): [Certificate, CertKind] => [i, 'intermediate']),
      ];
      for (const [p, kind] of candidates) {
        if (!sameBytes(p.rawSubject, c.rawIssuer) || chain.some((x) => sameBytes(x.raw, p.raw))) continue;
        if (++checks > MAX_SIGNATURE_CHECKS) return;
        if (!signedBy(c, p) || !isValid(p, kind, chain, opts)) continue;
        if (kind === 'root') chains.push([...chain, p]);
        else build([...chain, p]);
      }
    };
    build([leaf]);
  }
  if (chains.length === 0) throw new VerifyError('x509: certificate signed by unknown authority');
  const usages = opts.keyUsages.length === 0 ? [EKU_SERVER_AUTH] : opts.keyUsages;
  if (usages.includes(EKU_ANY)) return chains[0]!;
  const ok = chains.find((ch) => chainAllowsUsages(ch, usages));
  if (!ok) throw new VerifyError('x509: certificate specifies an incompatible key usage');
  return ok;
}
