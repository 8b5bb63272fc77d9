/**
 * The constraint extensions of Go 1.24's x509: name constraints (recorded, not enforced) and the
 * policy constraints, inhibitAnyPolicy and policy mappings.
 */
import { DerReader, TAG, ctx, oidString, parseInteger, parseOID } from './asn1.js';
import { seqOf, type ExtFields, type Extension, type NameConstraints } from './fields.js';
import { X509Error } from './name.js';
import { ipString } from '../gonet/index.js';

/** Go's parseNameConstraintsExtension: the subtrees by kind (recorded, not enforced). */
function nameConstraints(value: Uint8Array, critical: boolean, nc: NameConstraints): void {
  const r = seqOf(value, 'x509: invalid NameConstraints extension');
  nc.critical = critical;
  for (const [tagNo, permitted] of [
    [0, true],
    [1, false],
  ] as const) {
    const subtrees = r.readOptional(ctx(tagNo, true));
    if (subtrees === undefined) throw new X509Error('x509: invalid NameConstraints extension');
    if (!subtrees) continue;
    const st = new DerReader(subtrees.content);
    while (!st.empty) {
      const sub = st.read(TAG.SEQUENCE);
      const base = sub && new DerReader(sub.content).readAny();
      if (!base) throw new X509Error('x509: invalid NameConstraints extension');
      const text = Buffer.from(base.content).toString('latin1');
      const add = <T>(p: keyof NameConstraints, x: T): void => {
        const cur = nc[p] as unknown as T[] | null;
        (nc as unknown as Record<string, T[]>)[p] = cur ? [...cur, x] : [x];
      };
      switch (base.tag & 0x1f) {
        case 2:
          add(permitted ? 'permittedDNS' : 'excludedDNS', text);
          break;
        case 1:
          add(permitted ? 'permittedEmail' : 'excludedEmail', text);
          break;
        case 6:
          add(permitted ? 'permittedURI' : 'excludedURI', text);
          break;
        case 7: {
          const half = base.content.length / 2;
          if (half !== 4 && half !== 16)
            throw new X509Error('x509: IP constraint contained value of length ' + base.content.length);
          add(permitted ? 'permittedIP' : 'excludedIP', {
            IP: ipString(base.content.subarray(0, half)),
            Mask: Buffer.from(base.content.subarray(half)).toString('base64'),
          });
          break;
        }
        default:
          if (critical) throw new X509Error(`x509: unsupported name constraint type ${base.tag & 0x1f}`);
      }
    }
  }
}

function smallInt(el: { content: Uint8Array } | null | undefined, err: string): number {
  const v = el ? parseInteger(el.content) : undefined;
  if (v === undefined || v < 0n || v > 0x7fffffffn) throw new X509Error(err);
  return Number(v);
}

/** Handles one constraint extension; false if `id` is not one of them. */
export function constraintExtension(id: string, e: Extension, f: ExtFields): boolean {
  switch (id) {
    case '2.5.29.30':
      nameConstraints(e.value, e.critical, f.nameConstraints);
      return true;
    case '2.5.29.54':
      f.inhibitAnyPolicy = smallInt(new DerReader(e.value).read(TAG.INTEGER), 'x509: invalid inhibit any policy');
      return true;
    case '2.5.29.36': {
      const r = seqOf(e.value, 'x509: invalid policy constraints');
      const req = r.readOptional(ctx(0));
      if (req) f.requireExplicitPolicy = smallInt(req, 'x509: invalid policy constraints');
      const inh = r.readOptional(ctx(1));
      if (inh) f.inhibitPolicyMapping = smallInt(inh, 'x509: invalid policy constraints');
      return true;
    }
    case '2.5.29.33': {
      const r = seqOf(e.value, 'x509: invalid policy mappings');
      const maps: [string, string][] = [];
      while (!r.empty) {
        const m = r.read(TAG.SEQUENCE);
        const mr = m && new DerReader(m.content);
        const a = mr?.read(TAG.OID);
        const b = mr?.read(TAG.OID);
        const ia = a && parseOID(a.content);
        const ib = b && parseOID(b.content);
        if (!ia || !ib) throw new X509Error('x509: invalid policy mappings');
        maps.push([oidString(ia), oidString(ib)]);
      }
      f.policyMappings = maps;
      return true;
    }
    default:
      return false;
  }
}
