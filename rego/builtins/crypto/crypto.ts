/**
 * crypto.* builtins (OPA v1/topdown/crypto.go): digests and HMACs as lowercase hex, X.509 parsing
 * and chain verification, key parsing (lib/x509). Results mirror the JSON Go produces for its own types.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { BuiltinError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, RObject, RSet, fromJS, hasIntText, type Value } from '../../value.js';
import { obj, str } from '../args.js';
import { Base64Error, decodeStdBase64, pemDecode, toBytes } from '../../lib/goencoding/index.js';
import {
  VerifyError,
  X509Error,
  certificateJSON,
  certificateRequestJSON,
  certsFromString,
  keyPairJSON,
  privateKeysFromPEM,
  verifyChain,
  type VerifyOptions,
} from '../../lib/x509/index.js';
import { libraryCall } from '../lib-errors.js';
import type { BuiltinContext, BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

/** Runs X.509 code (lib/x509), its typed failures becoming builtin errors with Go's message. */
const goErrors = <R>(f: () => R): R => libraryCall([X509Error, Base64Error], f);

const strObj = T.object(T.string, T.any);
const certArray = T.array(strObj);

const decls: Record<string, BuiltinDecl> = {
  md5: { name: 'crypto.md5', args: [T.string], result: T.string },
  sha1: { name: 'crypto.sha1', args: [T.string], result: T.string },
  sha256: { name: 'crypto.sha256', args: [T.string], result: T.string },
  hmacMd5: { name: 'crypto.hmac.md5', args: [T.string, T.string], result: T.string },
  hmacSha1: { name: 'crypto.hmac.sha1', args: [T.string, T.string], result: T.string },
  hmacSha256: { name: 'crypto.hmac.sha256', args: [T.string, T.string], result: T.string },
  hmacSha512: { name: 'crypto.hmac.sha512', args: [T.string, T.string], result: T.string },
  hmacEqual: { name: 'crypto.hmac.equal', args: [T.string, T.string], result: T.boolean },
  parseCerts: { name: 'crypto.x509.parse_certificates', args: [T.string], result: certArray },
  parseAndVerify: {
    name: 'crypto.x509.parse_and_verify_certificates',
    args: [T.string],
    result: T.tuple(T.boolean, certArray),
  },
  parseAndVerifyWithOptions: {
    name: 'crypto.x509.parse_and_verify_certificates_with_options',
    args: [T.string, strObj],
    result: T.tuple(T.boolean, certArray),
  },
  parseCSR: { name: 'crypto.x509.parse_certificate_request', args: [T.string], result: strObj },
  parseKeyPair: { name: 'crypto.x509.parse_keypair', args: [T.string, T.string], result: strObj },
  parseRSAKey: { name: 'crypto.x509.parse_rsa_private_key', args: [T.string], result: strObj },
  parseKeys: { name: 'crypto.parse_private_keys', args: [T.string], result: certArray },
};

const digest =
  (alg: string): BuiltinImpl =>
  (args) =>
    createHash(alg).update(str(args, 0), 'utf8').digest('hex');

const hmac =
  (alg: string): BuiltinImpl =>
  (args) =>
    createHmac(alg, Buffer.from(str(args, 1), 'utf8'))
      .update(str(args, 0), 'utf8')
      .digest('hex');

/** Go's tls ExtKeyUsage names accepted in `KeyUsages`. */
const KEY_USAGES: Readonly<Record<string, number>> = {
  KeyUsageAny: 0,
  KeyUsageServerAuth: 1,
  KeyUsageClientAuth: 2,
  KeyUsageCodeSigning: 3,
  KeyUsageEmailProtection: 4,
  KeyUsageIPSECEndSystem: 5,
  KeyUsageIPSECTunnel: 6,
  KeyUsageIPSECUser: 7,
  KeyUsageTimeStamping: 8,
  KeyUsageOCSPSigning: 9,
  KeyUsageMicrosoftServerGatedCrypto: 10,
  KeyUsageNetscapeServerGatedCrypto: 11,
  KeyUsageMicrosoftCommercialCodeSigning: 12,
  KeyUsageMicrosoftKernelCodeSigning: 13,
};

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** OPA's extractVerifyOpts: unknown keys and badly typed values are errors. */
function verifyOptions(options: RObject, ctx: BuiltinContext): VerifyOptions {
  const opts: VerifyOptions = { currentTimeNs: ctx.nowNs(), keyUsages: [] };
  for (const [k, v] of options.entries()) {
    if (typeof k !== 'string') continue;
    switch (k) {
      case 'DNSName':
        if (typeof v !== 'string') throw new BuiltinError("'DNSName' should be a string");
        opts.dnsName = v.replace(/^"+|"+$/g, '');
        break;
      case 'CurrentTime': {
        // NB: OPA reads the option with json.Number.Int64, which rejects a literal such as 1e18.
        if (v instanceof NumLit && !hasIntText(v))
          throw new BuiltinError("'CurrentTime' should be a valid int64 number");
        const t = v instanceof NumLit ? v.n : v;
        if (typeof t !== 'number' && typeof t !== 'bigint') throw new BuiltinError("'CurrentTime' should be a number");
        if (typeof t === 'number' && !Number.isInteger(t))
          throw new BuiltinError("'CurrentTime' should be a valid int64 number");
        const n = BigInt(t);
        if (n < INT64_MIN || n > INT64_MAX) throw new BuiltinError("'CurrentTime' should be a valid int64 number");
        opts.currentTimeNs = n;
        break;
      }
      case 'MaxConstraintComparisons':
        if (v instanceof NumLit) throw new BuiltinError("'MaxConstraintComparisons' should be a valid number");
        if (typeof v !== 'number' && typeof v !== 'bigint')
          throw new BuiltinError("'MaxConstraintComparisons' should be a number");
        if (typeof v !== 'number' || !Number.isInteger(v))
          throw new BuiltinError("'MaxConstraintComparisons' should be a valid number");
        break;
      case 'KeyUsages': {
        let items: readonly Value[];
        if (Array.isArray(v)) items = v;
        else if (v instanceof RSet) items = v.values();
        else throw new BuiltinError("'KeyUsages' should be an Array or Set");
        const invalid: string[] = [];
        for (const u of items) {
          if (typeof u !== 'string') continue;
          const name = u.replace(/^"+|"+$/g, '');
          const code = KEY_USAGES[name];
          if (code === undefined) invalid.push(name);
          else opts.keyUsages.push(code);
        }
        if (invalid.length > 0) throw new BuiltinError(`invalid entries for 'KeyUsages' found: [${invalid.join(' ')}]`);
        break;
      }
      default:
        throw new BuiltinError('invalid key option');
    }
  }
  return opts;
}

const UNVERIFIED: Value = [false, []];

function parseAndVerify(input: string, opts: () => VerifyOptions, withURIStrings: boolean): Value {
  let certs;
  try {
    certs = goErrors(() => certsFromString(input));
  } catch (e) {
    if (e instanceof BuiltinError) return UNVERIFIED;
    throw e;
  }
  const options = opts();
  try {
    const chain = verifyChain(certs, options);
    return [true, chain.map((c) => fromJS(certificateJSON(c, withURIStrings)))];
  } catch (e) {
    if (e instanceof VerifyError) return UNVERIFIED;
    throw e;
  }
}

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  md5: digest('md5'),
  sha1: digest('sha1'),
  sha256: digest('sha256'),
  hmacMd5: hmac('md5'),
  hmacSha1: hmac('sha1'),
  hmacSha256: hmac('sha256'),
  hmacSha512: hmac('sha512'),
  hmacEqual: (args) => {
    const a = Buffer.from(str(args, 0), 'utf8');
    const b = Buffer.from(str(args, 1), 'utf8');
    return a.length === b.length && timingSafeEqual(a, b);
  },
  parseCerts: (args) => {
    const input = str(args, 0);
    // OPA documents null (not an empty list) for empty input.
    if (input === '') return null;
    const certs = goErrors(() => certsFromString(input));
    return certs.map((c) => fromJS(certificateJSON(c, true)));
  },
  parseAndVerify: (args, ctx) =>
    parseAndVerify(str(args, 0), () => ({ currentTimeNs: ctx.nowNs(), keyUsages: [] }), true),
  parseAndVerifyWithOptions: (args, ctx) => {
    const input = str(args, 0);
    const options = obj(args, 1);
    return parseAndVerify(input, () => verifyOptions(options, ctx), false);
  },
  parseCSR: (args) => {
    const input = str(args, 0);
    return goErrors(() => {
      let bytes = toBytes(input);
      if (!input.startsWith('-----BEGIN CERTIFICATE REQUEST-----')) bytes = decodeStdBase64(input);
      const { block } = pemDecode(bytes);
      if (block && block.type !== 'CERTIFICATE REQUEST') {
        throw new BuiltinError('invalid PEM-encoded certificate signing request');
      }
      return fromJS(certificateRequestJSON(block ? block.bytes : bytes));
    });
  },
  parseKeyPair: (args) => {
    const cert = str(args, 0);
    const key = args[1];
    // NB: OPA reports a bad key operand as operand 1, not 2.
    if (typeof key !== 'string') throw operandError(1, 'string', key ?? null);
    return fromJS(goErrors(() => keyPairJSON(cert, key)));
  },
  parseRSAKey: (args) => {
    let pem = str(args, 0);
    if (pem === '') throw new BuiltinError('input PEM data was empty');
    return goErrors(() => {
      if (!pem.startsWith('-----BEGIN')) pem = Buffer.from(decodeStdBase64(pem)).toString('latin1');
      const keys = privateKeysFromPEM(pem);
      if (keys.length === 0) return null;
      return fromJS(keys[0]!.key.export({ format: 'jwk' }) as Record<string, string>);
    });
  },
  parseKeys: (args) => {
    const input = str(args, 0);
    if (input === '') return null;
    return goErrors(() => privateKeysFromPEM(input).map((k) => fromJS(k.json)));
  },
};

export function register(r: BuiltinRegistry): void {
  for (const key of Object.keys(decls) as (keyof typeof decls)[]) r.add(decls[key]!, impls[key]);
}
