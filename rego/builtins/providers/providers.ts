/**
 * providers.aws.sign_req (OPA v1/topdown/providers.go): AWS Signature Version 4 by the
 * Authorization-header method, over OPA's http.send request object.
 */
import { createHash, createHmac } from 'node:crypto';
import { BuiltinError, operandError, operandErrorText } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, RObject, RSet, hasIntText, toJSONText, toRegoText, type Value } from '../../value.js';
import { parseURL } from '../../lib/x509/index.js';
import { UTC, formatTime } from '../../lib/gotime/index.js';
import type { BuiltinDecl, BuiltinRegistry } from '../registry.js';

const decl: BuiltinDecl = {
  name: 'providers.aws.sign_req',
  args: [T.object(T.string, T.any), T.object(T.string, T.any), T.number],
  result: T.object(T.any, T.any),
};

const REQUIRED_CONFIG = ['aws_access_key', 'aws_region', 'aws_secret_access_key', 'aws_service'];

/** The request keys http.send accepts (OPA's allowedKeys). */
const ALLOWED_REQUEST_KEYS = new Set([
  'method',
  'url',
  'body',
  'enable_redirect',
  'force_json_decode',
  'force_yaml_decode',
  'headers',
  'raw_body',
  'tls_use_system_certs',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_insecure_skip_verify',
  'tls_server_name',
  'timeout',
  'cache',
  'force_cache',
  'force_cache_duration_seconds',
  'raise_error',
  'caching_mode',
  'max_retry_attempts',
  'cache_ignored_headers',
]);

// Headers a proxy may rewrite are left out of the canonical request (as the AWS SDK does).
const IGNORED_HEADERS = new Set(['authorization', 'user-agent', 'x-amzn-trace-id']);

const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

function strOf(v: Value | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** `{"a", "b"}` as OPA prints a set of names in operand errors. */
function setText(names: string[]): string {
  return toRegoText(RSet.from(names));
}

function objectArg(args: readonly Value[], i: number): RObject {
  const v = args[i]!;
  // NB: OPA reports both object operands as operand 1.
  if (!(v instanceof RObject)) throw operandError(1, 'object', v);
  return v;
}

function validateConfig(cfg: RObject): void {
  const missing = REQUIRED_CONFIG.filter((k) => !cfg.has(k));
  if (missing.length > 0) throw operandErrorText(2, `missing required AWS config parameters(s): ${setText(missing)}`);
  const invalid = REQUIRED_CONFIG.filter((k) => typeof cfg.get(k) !== 'string');
  if (invalid.length > 0)
    throw operandErrorText(2, `invalid values for required AWS config parameters(s): ${setText(invalid)}`);
}

function validateRequest(req: RObject): void {
  const keys = req.keys().map((k) => (typeof k === 'string' ? k : toRegoText(k)));
  const invalid = keys.filter((k) => !ALLOWED_REQUEST_KEYS.has(k));
  if (invalid.length > 0) throw operandErrorText(1, `invalid request parameters(s): ${setText(invalid)}`);
  const missing = ['method', 'url'].filter((k) => !req.has(k));
  if (missing.length > 0) throw operandErrorText(1, `missing required request parameters(s): ${setText(missing)}`);
}

/** Go's URL.EscapedPath for a path without a usable raw form. */
function escapePath(p: string): string {
  let out = '';
  for (const b of Buffer.from(p, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~$&+,/:;=@!'()*]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function hmac(key: Uint8Array | string, msg: string): Buffer {
  return createHmac('sha256', key).update(msg, 'utf8').digest();
}

interface SignInput {
  headers: Map<string, string>;
  method: string;
  host: string;
  path: string;
  rawQuery: string;
  body: Uint8Array;
  service: string;
  accessKey: string;
  secretKey: string;
  region: string;
  sessionToken: string;
  timeNs: bigint;
  disablePayloadSigning: boolean;
}

/** AWS SigV4: the Authorization header value and the x-amz-* headers to add. */
function signV4(i: SignInput): { auth: string; awsHeaders: Map<string, string> } {
  const payloadHash = i.disablePayloadSigning ? UNSIGNED_PAYLOAD : createHash('sha256').update(i.body).digest('hex');
  const dateNow = formatTime(i.timeNs, UTC, '20060102');
  const isoNow = formatTime(i.timeNs, UTC, '20060102T150405Z');
  const awsHeaders = new Map<string, string>([
    ['host', i.host],
    ['x-amz-date', isoNow],
  ]);
  if (i.service === 's3' || i.service === 'glacier') awsHeaders.set('x-amz-content-sha256', payloadHash);
  if (i.sessionToken !== '') awsHeaders.set('x-amz-security-token', i.sessionToken);
  const toSign = new Map(awsHeaders);
  for (const [k, v] of i.headers) {
    const lower = k.toLowerCase();
    if (!IGNORED_HEADERS.has(lower)) toSign.set(lower, v);
  }
  const names = [...toSign.keys()].sort();
  const signedHeaders = names.join(';');
  const canonical =
    `${i.method}\n${i.path}\n${i.rawQuery}\n` +
    names.map((k) => `${k}:${toSign.get(k)}\n`).join('') +
    `\n${signedHeaders}\n${payloadHash}`;
  const scope = `${dateNow}/${i.region}/${i.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${isoNow}\n${scope}\n${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
  let key = hmac(`AWS4${i.secretKey}`, dateNow);
  key = hmac(key, i.region);
  key = hmac(key, i.service);
  key = hmac(key, 'aws4_request');
  const signature = hmac(key, stringToSign).toString('hex');
  const auth = `AWS4-HMAC-SHA256 Credential=${i.accessKey}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`;
  return { auth, awsHeaders };
}

function signReq(args: readonly Value[]): Value {
  const req = objectArg(args, 0);
  const cfg = objectArg(args, 1);
  validateConfig(cfg);
  const ts = args[2]!;
  if (typeof ts !== 'number' && typeof ts !== 'bigint' && !(ts instanceof NumLit)) throw operandError(1, 'number', ts);
  // NB: OPA reads the timestamp with json.Number.Int64, so `-1e9` is no timestamp (a conformance case).
  const int64 =
    ts instanceof NumLit
      ? hasIntText(ts)
        ? BigInt(ts.n)
        : undefined
      : typeof ts === 'bigint'
        ? ts
        : Number.isInteger(ts)
          ? BigInt(ts)
          : undefined;
  if (int64 === undefined || int64 < -(1n << 63n) || int64 >= 1n << 63n) {
    throw operandErrorText(3, 'could not convert time_ns value into a unix timestamp');
  }
  validateRequest(req);
  let headers = new RObject();
  const h = req.get('headers');
  if (h !== undefined) {
    if (!(h instanceof RObject)) throw operandError(0, 'object', h);
    headers = h;
  }
  const url = req.get('url');
  const method = req.get('method');
  const badParams = [typeof method !== 'string' ? 'method' : '', typeof url !== 'string' ? 'url' : ''].filter(Boolean);
  if (badParams.length > 0)
    throw operandErrorText(1, `invalid values for required request parameters(s): ${setText(badParams)}`);
  let parsed;
  try {
    parsed = parseURL(url as string).url;
  } catch (e) {
    throw new BuiltinError(`parse ${JSON.stringify(url)}: ${(e as Error).message}`);
  }
  const rawBody = req.get('raw_body');
  const body = req.get('body');
  const bodyBytes =
    rawBody !== undefined
      ? Buffer.from(strOf(rawBody), 'utf8')
      : body !== undefined
        ? Buffer.from(toJSONText(body, { escapeHTML: true }), 'utf8')
        : Buffer.alloc(0);
  const headerMap = new Map<string, string>();
  for (const [k, v] of headers.entries()) headerMap.set(strOf(k), strOf(v));
  let disablePayloadSigning = false;
  const dps = cfg.get('disable_payload_signing');
  if (dps !== undefined) {
    if (typeof dps !== 'boolean')
      throw operandErrorText(2, "invalid value for 'disable_payload_signing' in AWS config");
    disablePayloadSigning = dps;
  }
  const { auth, awsHeaders } = signV4({
    headers: headerMap,
    method: method as string,
    host: parsed.Host,
    path: parsed.RawPath !== '' ? parsed.RawPath : escapePath(parsed.Path),
    rawQuery: parsed.RawQuery,
    body: bodyBytes,
    service: strOf(cfg.get('aws_service')),
    accessKey: strOf(cfg.get('aws_access_key')),
    secretKey: strOf(cfg.get('aws_secret_access_key')),
    region: strOf(cfg.get('aws_region')),
    sessionToken: strOf(cfg.get('aws_session_token')),
    timeNs: int64,
    disablePayloadSigning,
  });
  const signed = new RObject();
  for (const [k, v] of headerMap) signed.set(k, v);
  signed.set('Authorization', auth);
  for (const [k, v] of awsHeaders) signed.set(k, v);
  const out = new RObject();
  for (const [k, v] of req.entries()) out.set(k, v);
  out.set('headers', signed);
  return out;
}

export function register(r: BuiltinRegistry): void {
  r.add(decl, (args) => signReq(args));
}
