import { describe, expect, it } from 'vitest';
import { ApiError } from '../status-errors.js';
import { decodeProtobufObject } from './protobuf.js';

// The body `kubectl create configmap foo --from-literal=a=b` sent (captured with -v=8).
// `kubectl create deployment y --image=nginx:1 --port=80 --replicas=2` (kubectl 1.3x).
const DEPLOYMENT =
  '6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b2010a1b0a017912001a0022002a003200380042005a080a036170701201791284010802120a0a080a036170701201791a6c0a1a0a0012001a0022002a003200380042005a080a03617070120179124e12300a056e67696e7812076e67696e783a312a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200';
// The DeleteOptions helm v4 sends when it purges a release Secret.
const DELETE_OPTIONS = '6b3873000a130a027631120d44656c6574654f7074696f6e7312001a002200';
const CONFIGMAP =
  '6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a03666f6f12001a0022002a0032003800420012060a01611201621a002200';

/** The bytes of the first length-delimited field `num` of a message (test helper; lengths < 2^14). */
function findField(msg: Buffer, num: number): Buffer {
  let i = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = msg[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (i < msg.length) {
    const key = varint();
    if ((key & 7) === 0) {
      varint();
      continue;
    }
    const len = varint();
    if (key >>> 3 === num) return msg.subarray(i, i + len);
    i += len;
  }
  throw new Error(`field ${num} not found`);
}

describe('protobuf request bodies', () => {
  it('decodes what kubectl sends for a ConfigMap, dropping empty Go zero values', () => {
    expect(decodeProtobufObject(Buffer.from(CONFIGMAP, 'hex'))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'foo' },
      data: { a: 'b' },
    });
  });

  it('decodes what kubectl create deployment sends', () => {
    expect(decodeProtobufObject(Buffer.from(DEPLOYMENT, 'hex'))).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'y', labels: { app: 'y' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'y' } },
        template: {
          metadata: { labels: { app: 'y' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('decodes a Pod (the same PodSpec message as the Deployment template)', () => {
    // The Deployment's template (a PodTemplateSpec: metadata 1, spec 2) re-wrapped as a v1 Pod.
    const outer = Buffer.from(DEPLOYMENT, 'hex').subarray(4);
    const template = findField(findField(findField(outer, 2), 2), 3);
    const typeMeta = Buffer.from('0a0276311203506f64', 'hex'); // apiVersion "v1", kind "Pod"
    const body = Buffer.concat([
      Buffer.from('6b387300', 'hex'),
      Buffer.from([0x0a, typeMeta.length]),
      typeMeta,
      Buffer.from([0x12, template.length]),
      template,
    ]);
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { labels: { app: 'y' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }], resources: {} }] },
    });
  });

  it('decodes the DeleteOptions helm sends', () => {
    expect(decodeProtobufObject(Buffer.from(DELETE_OPTIONS, 'hex'))).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
    });
  });

  it('refuses (415) a message with a field it cannot decode rather than dropping it', () => {
    // Same ConfigMap with an extra field 9 (a string "x") in the object message.
    const raw = Buffer.from('0a050a03666f6f4a0178', 'hex');
    const env = Buffer.concat([
      Buffer.from('6b387300', 'hex'),
      Buffer.from('0a0f0a0276311209436f6e6669674d6170', 'hex'),
      Buffer.from([0x12, raw.length]),
      raw,
    ]);
    try {
      decodeProtobufObject(env);
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).status).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    }
  });

  it('refuses kinds it has no message table for', () => {
    const env = Buffer.concat([
      Buffer.from('6b387300', 'hex'),
      Buffer.from('0a150a07617070732f7631120a5265706c696361536574', 'hex'),
    ]);
    expect(() => decodeProtobufObject(env)).toThrow(/unknown format/);
  });
});
