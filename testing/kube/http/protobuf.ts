/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) for the kinds
 * kubectl's typed commands send that way (`kubectl create namespace|configmap|secret|serviceaccount|
 * deployment`) and the DeleteOptions typed clients send (helm's release Secrets).
 * Envelope: the magic `k8s\0` then a runtime.Unknown {typeMeta, raw}; `raw` is the object's message.
 * Other kinds answer 415, as a server without their protobuf types would.
 */
import { isObject, type JsonObject } from '../schema/types.js';
import { badRequest, unsupportedMediaType } from '../status-errors.js';

type Field =
  | { name: string; type: 'string' | 'bool' | 'int64' | 'bytes' | 'intstr' }
  | { name: string; type: 'message'; of: Schema }
  | { name: string; type: 'map'; value: 'string' | 'bytes' | 'quantity' }
  | { name: string; type: 'time' };

interface Schema {
  /**
   * `presence`: a Go pointer field (`*int32`, `*bool`), whose zero value was set on purpose and is
   * kept; other zero values are what gogo writes for every unset non-pointer field and are dropped.
   */
  [num: number]: Field & { repeated?: boolean; presence?: boolean };
}

const OWNER_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

const OBJECT_META: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int64' },
  8: { name: 'creationTimestamp', type: 'time' },
  11: { name: 'labels', type: 'map', value: 'string' },
  12: { name: 'annotations', type: 'map', value: 'string' },
  13: { name: 'ownerReferences', type: 'message', of: OWNER_REFERENCE, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const LOCAL_REF: Schema = { 1: { name: 'name', type: 'string' } };
const OBJECT_REF: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
};

const LABEL_SELECTOR: Schema = {
  1: { name: 'matchLabels', type: 'map', value: 'string' },
  2: {
    name: 'matchExpressions',
    type: 'message',
    repeated: true,
    of: {
      1: { name: 'key', type: 'string' },
      2: { name: 'operator', type: 'string' },
      3: { name: 'values', type: 'string', repeated: true },
    },
  },
};

const CONTAINER: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'image', type: 'string' },
  3: { name: 'command', type: 'string', repeated: true },
  4: { name: 'args', type: 'string', repeated: true },
  5: { name: 'workingDir', type: 'string' },
  6: {
    name: 'ports',
    type: 'message',
    repeated: true,
    of: {
      1: { name: 'name', type: 'string' },
      2: { name: 'hostPort', type: 'int64' },
      3: { name: 'containerPort', type: 'int64' },
      4: { name: 'protocol', type: 'string' },
      5: { name: 'hostIP', type: 'string' },
    },
  },
  7: {
    name: 'env',
    type: 'message',
    repeated: true,
    of: { 1: { name: 'name', type: 'string' }, 2: { name: 'value', type: 'string' } },
  },
  8: {
    name: 'resources',
    type: 'message',
    of: {
      1: { name: 'limits', type: 'map', value: 'quantity' },
      2: { name: 'requests', type: 'map', value: 'quantity' },
    },
  },
  13: { name: 'terminationMessagePath', type: 'string' },
  14: { name: 'imagePullPolicy', type: 'string' },
  16: { name: 'stdin', type: 'bool' },
  17: { name: 'stdinOnce', type: 'bool' },
  18: { name: 'tty', type: 'bool' },
  20: { name: 'terminationMessagePolicy', type: 'string' },
};

/** The PodSpec fields kubectl's generators fill (others make the body unsupported unless empty). */
const POD_SPEC: Schema = {
  2: { name: 'containers', type: 'message', of: CONTAINER, repeated: true },
  3: { name: 'restartPolicy', type: 'string' },
  4: { name: 'terminationGracePeriodSeconds', type: 'int64', presence: true },
  6: { name: 'dnsPolicy', type: 'string' },
  7: { name: 'nodeSelector', type: 'map', value: 'string' },
  8: { name: 'serviceAccountName', type: 'string' },
  9: { name: 'serviceAccount', type: 'string' },
  10: { name: 'nodeName', type: 'string' },
  11: { name: 'hostNetwork', type: 'bool' },
  12: { name: 'hostPID', type: 'bool' },
  13: { name: 'hostIPC', type: 'bool' },
  15: { name: 'imagePullSecrets', type: 'message', of: LOCAL_REF, repeated: true },
  16: { name: 'hostname', type: 'string' },
  17: { name: 'subdomain', type: 'string' },
  19: { name: 'schedulerName', type: 'string' },
  20: { name: 'initContainers', type: 'message', of: CONTAINER, repeated: true },
  24: { name: 'priorityClassName', type: 'string' },
};

const POD_TEMPLATE_SPEC: Schema = {
  1: { name: 'metadata', type: 'message', of: OBJECT_META },
  2: { name: 'spec', type: 'message', of: POD_SPEC },
};

const DEPLOYMENT_SPEC: Schema = {
  1: { name: 'replicas', type: 'int64', presence: true },
  2: { name: 'selector', type: 'message', of: LABEL_SELECTOR },
  3: { name: 'template', type: 'message', of: POD_TEMPLATE_SPEC },
  4: {
    name: 'strategy',
    type: 'message',
    of: {
      1: { name: 'type', type: 'string' },
      2: {
        name: 'rollingUpdate',
        type: 'message',
        of: { 1: { name: 'maxUnavailable', type: 'intstr' }, 2: { name: 'maxSurge', type: 'intstr' } },
      },
    },
  },
  5: { name: 'minReadySeconds', type: 'int64' },
  6: { name: 'revisionHistoryLimit', type: 'int64', presence: true },
  7: { name: 'paused', type: 'bool' },
  9: { name: 'progressDeadlineSeconds', type: 'int64', presence: true },
};

/** Status is reset on create; its counters are decoded only so that zero values pass. */
const DEPLOYMENT_STATUS: Schema = {
  1: { name: 'observedGeneration', type: 'int64' },
  2: { name: 'replicas', type: 'int64' },
  3: { name: 'updatedReplicas', type: 'int64' },
  4: { name: 'availableReplicas', type: 'int64' },
  5: { name: 'unavailableReplicas', type: 'int64' },
  7: { name: 'readyReplicas', type: 'int64' },
};

const DELETE_OPTIONS: Schema = {
  1: { name: 'gracePeriodSeconds', type: 'int64', presence: true },
  2: {
    name: 'preconditions',
    type: 'message',
    of: {
      1: { name: 'uid', type: 'string', presence: true },
      2: { name: 'resourceVersion', type: 'string', presence: true },
    },
  },
  3: { name: 'orphanDependents', type: 'bool', presence: true },
  4: { name: 'propagationPolicy', type: 'string', presence: true },
  5: { name: 'dryRun', type: 'string', repeated: true },
};

const KINDS: Record<string, Schema> = {
  'apps/v1/Deployment': {
    1: { name: 'metadata', type: 'message', of: OBJECT_META },
    2: { name: 'spec', type: 'message', of: DEPLOYMENT_SPEC },
    3: { name: 'status', type: 'message', of: DEPLOYMENT_STATUS },
  },
  'v1/Pod': {
    1: { name: 'metadata', type: 'message', of: OBJECT_META },
    2: { name: 'spec', type: 'message', of: POD_SPEC },
    3: { name: 'status', type: 'message', of: {} },
  },
  'v1/DeleteOptions': DELETE_OPTIONS,
  'meta.k8s.io/v1/DeleteOptions': DELETE_OPTIONS,
  'v1/ConfigMap': {
    1: { name: 'metadata', type: 'message', of: OBJECT_META },
    2: { name: 'data', type: 'map', value: 'string' },
    3: { name: 'binaryData', type: 'map', value: 'bytes' },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: { name: 'metadata', type: 'message', of: OBJECT_META },
    2: { name: 'data', type: 'map', value: 'bytes' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'map', value: 'string' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/Namespace': {
    1: { name: 'metadata', type: 'message', of: OBJECT_META },
    2: { name: 'spec', type: 'message', of: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
    3: { name: 'status', type: 'message', of: { 1: { name: 'phase', type: 'string' } } },
  },
  'v1/ServiceAccount': {
    1: { name: 'metadata', type: 'message', of: OBJECT_META },
    2: { name: 'secrets', type: 'message', of: OBJECT_REF, repeated: true },
    3: { name: 'imagePullSecrets', type: 'message', of: LOCAL_REF, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
};

class Reader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly end = buf.length,
  ) {}

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw badRequest('protobuf: unexpected end of varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw badRequest('protobuf: varint too long');
    }
  }

  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.end) throw badRequest('protobuf: length out of range');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw badRequest(`protobuf: unsupported wire type ${wire}`);
  }
}

function decodeMessage(buf: Buffer, schema: Schema): JsonObject {
  const r = new Reader(buf);
  const out: JsonObject = {};
  while (r.pos < r.end) {
    const key = Number(r.varint());
    const num = key >>> 3;
    const wire = key & 7;
    const f = schema[num];
    if (!f) {
      // NB: a field this table does not know must not vanish silently: empty values are safe to skip,
      // anything else makes the request unsupported (415) rather than stored without it.
      const at = r.pos;
      r.skip(wire);
      const empty = wire === 2 ? r.pos - at === 1 : wire === 0 ? r.buf[at] === 0 : false;
      if (!empty) throw unsupportedMediaType(['application/json', 'application/yaml']);
      continue;
    }
    let value: unknown;
    switch (f.type) {
      case 'string':
        value = r.bytes().toString('utf8');
        break;
      case 'bool':
        value = r.varint() !== 0n;
        break;
      case 'int64':
        value = Number(BigInt.asIntN(64, r.varint()));
        break;
      case 'intstr': {
        const v = decodeMessage(r.bytes(), {
          1: { name: 'type', type: 'int64' },
          2: { name: 'intVal', type: 'int64' },
          3: { name: 'strVal', type: 'string' },
        });
        value = v.type === 1 ? String(v.strVal ?? '') : Number(v.intVal ?? 0);
        if (value === 0) value = { zero: 0 }; // NB: an explicit 0 survives the zero-value filter below
        break;
      }
      case 'bytes':
        value = r.bytes().toString('base64');
        break;
      case 'message':
        value = decodeMessage(r.bytes(), f.of);
        break;
      case 'time': {
        const t = decodeMessage(r.bytes(), { 1: { name: 'seconds', type: 'int64' } });
        value = t.seconds ? new Date(Number(t.seconds) * 1000).toISOString().replace('.000Z', 'Z') : undefined;
        break;
      }
      case 'map': {
        const valueField: Field =
          f.value === 'quantity'
            ? { name: 'v', type: 'message', of: { 1: { name: 'string', type: 'string' } } }
            : { name: 'v', type: f.value };
        const entry = decodeMessage(r.bytes(), { 1: { name: 'k', type: 'string' }, 2: valueField });
        const m = (out[f.name] as JsonObject | undefined) ?? {};
        const v = f.value === 'quantity' ? (entry.v as JsonObject | undefined)?.string : entry.v;
        m[String(entry.k ?? '')] = v ?? '';
        out[f.name] = m;
        continue;
      }
    }
    if (f.repeated) {
      const list = (out[f.name] as unknown[] | undefined) ?? [];
      list.push(value);
      out[f.name] = list;
    } else if (isObject(value) && 'zero' in value) out[f.name] = 0;
    else if (value !== undefined && (f.presence || (value !== '' && value !== 0 && value !== false)))
      out[f.name] = value;
  }
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a protobuf body into the JSON object the same request would have sent. */
export function decodeProtobufObject(body: Buffer): JsonObject {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf: missing the k8s magic prefix');
  const unknown = decodeMessage(body.subarray(4), {
    1: {
      name: 'typeMeta',
      type: 'message',
      of: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } },
    },
    2: { name: 'raw', type: 'bytes' },
  });
  const tm = (unknown.typeMeta ?? {}) as JsonObject;
  const key = `${String(tm.apiVersion ?? '')}/${String(tm.kind ?? '')}`;
  const schema = KINDS[key];
  if (!schema) throw unsupportedMediaType(['application/json', 'application/yaml']);
  const obj = decodeMessage(Buffer.from(String(unknown.raw ?? ''), 'base64'), schema);
  return { apiVersion: tm.apiVersion, kind: tm.kind, ...obj };
}
