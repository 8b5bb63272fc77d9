import { describe, expect, it } from 'vitest';
import { OperandError } from '../../errors.js';
import { RObject, RSet, fromJS, toJS, type Value } from '../../value.js';
import { register } from './providers.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';

const registry = new BuiltinRegistry();
register(registry);
const ctx: BuiltinContext = {
  strict: true,
  nowNs: () => 0n,
  cache: new Map(),
  checkDeadline: () => {},
  charge: () => {},
};

// 2015-12-28T14:08:25Z, the instant of AWS's own SigV4 examples.
const TIME = 1451311705000000000n;
const config = (extra: Record<string, unknown> = {}): Value =>
  fromJS({
    aws_access_key: 'AKID',
    aws_secret_access_key: 'SECRET',
    aws_service: 's3',
    aws_region: 'us-east-1',
    ...extra,
  });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function sign(req: Value, cfg: Value = config(), t: Value = TIME): any {
  return toJS(registry.get('providers.aws.sign_req')!.impl([req, cfg, t], ctx)!);
}

function fails(req: Value, cfg: Value = config(), t: Value = TIME): Error {
  try {
    sign(req, cfg, t);
  } catch (e) {
    return e as Error;
  }
  throw new Error('sign_req did not fail');
}

const EMPTY_SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('providers.aws.sign_req', () => {
  it('adds the SigV4 headers for S3 and keeps the request', () => {
    const out = sign(fromJS({ method: 'get', url: 'http://example.com/a%20b?x=1', headers: { Foo: 'bar' } }));
    expect(out.method).toBe('get');
    expect(out.url).toBe('http://example.com/a%20b?x=1');
    expect(out.headers).toMatchObject({
      Foo: 'bar',
      host: 'example.com',
      'x-amz-date': '20151228T140825Z',
      'x-amz-content-sha256': EMPTY_SHA,
    });
    expect(out.headers.Authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/20151228\/us-east-1\/s3\/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=[0-9a-f]{64}$/,
    );
  });

  it.each([
    { name: 'the body', a: { body: fromJS({ x: 1 }) }, b: { body: fromJS({ x: 2 }) } },
    { name: 'the secret', a: {}, b: {}, cfgB: { aws_secret_access_key: 'OTHER' } },
    { name: 'a signed header', a: { headers: fromJS({ foo: 'a' }) }, b: { headers: fromJS({ foo: 'b' }) } },
  ])('changes the signature with $name', ({ a, b, cfgB }) => {
    const req = (extra: Record<string, Value>): Value =>
      RObject.from([['method', 'get'], ['url', 'https://example.com'], ...Object.entries(extra)]);
    const sigA = sign(req(a as Record<string, Value>)).headers.Authorization;
    const sigB = sign(req(b as Record<string, Value>), config(cfgB ?? {})).headers.Authorization;
    expect(sigA).not.toBe(sigB);
  });

  it('does not sign headers that proxies rewrite', () => {
    const plain = sign(fromJS({ method: 'get', url: 'https://example.com' })).headers.Authorization;
    const withAgent = sign(fromJS({ method: 'get', url: 'https://example.com', headers: { 'User-Agent': 'x' } }))
      .headers.Authorization;
    expect(withAgent).toBe(plain);
  });

  it('serialises Rego bodies as JSON with sets as arrays', () => {
    const body = RObject.from([['example', RSet.from([1, 2, 3, 4])]]);
    const out = sign(
      RObject.from([
        ['method', 'get'],
        ['url', 'http://example.com'],
        ['body', body],
      ]),
    );
    expect(out.headers['x-amz-content-sha256']).toBe(
      'bacff6243c850423883052ac3c336fd645994442933408dfd3f9e858e69bda07',
    );
  });

  it('marks unsigned payloads and adds the session token', () => {
    const out = sign(
      fromJS({ method: 'get', url: 'http://example.com' }),
      config({ disable_payload_signing: true, aws_session_token: 'TOKEN' }),
    );
    expect(out.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(out.headers['x-amz-security-token']).toBe('TOKEN');
    expect(out.headers.Authorization).toContain(
      'SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,',
    );
  });

  it('omits the payload hash header for services other than S3 and Glacier', () => {
    const out = sign(fromJS({ method: 'get', url: 'http://example.com' }), config({ aws_service: 'execute-api' }));
    expect(out.headers['x-amz-content-sha256']).toBeUndefined();
  });

  it.each([
    {
      name: 'missing request keys',
      req: fromJS({}),
      msg: 'operand 1 missing required request parameters(s): {"method", "url"}',
    },
    {
      name: 'unknown request keys',
      req: fromJS({ method: 'get', url: 'http://x', bogus: 1 }),
      msg: 'operand 1 invalid request parameters(s): {"bogus"}',
    },
    {
      name: 'non-string method and url',
      req: fromJS({ method: new RSet(), url: 1 }),
      msg: 'operand 1 invalid values for required request parameters(s): {"method", "url"}',
    },
    {
      name: 'missing config keys',
      req: fromJS({ method: 'get', url: 'http://x' }),
      cfg: fromJS({ example: 'x' }),
      msg: 'operand 2 missing required AWS config parameters(s): {"aws_access_key", "aws_region", "aws_secret_access_key", "aws_service"}',
    },
    {
      name: 'non-boolean payload signing flags',
      req: fromJS({ method: 'get', url: 'http://x' }),
      cfg: config({ disable_payload_signing: 'false' }),
      msg: "operand 2 invalid value for 'disable_payload_signing' in AWS config",
    },
    {
      name: 'fractional timestamps',
      req: fromJS({ method: 'get', url: 'http://x' }),
      t: 1.5,
      msg: 'operand 3 could not convert time_ns value into a unix timestamp',
    },
  ])('raises a type error for $name', ({ req, cfg, t, msg }) => {
    const e = fails(req, cfg ?? config(), t ?? TIME);
    expect(e).toBeInstanceOf(OperandError);
    expect(e.message).toBe(msg);
  });
});
