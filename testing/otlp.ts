/**
 * An OTLP/HTTP receiver in the test process: what a collector would receive from Steward's exporters (JSON
 * encoding, the `@opentelemetry/exporter-*-otlp-http` default), kept as spans and metrics, and every body as sent.
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status?: { code?: number; message?: string };
}

export interface ReceivedHistogram {
  service: string;
  name: string;
  unit?: string;
  points: { attributes: Record<string, unknown>; count: number; sum?: number; explicitBounds: number[] }[];
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  histograms: ReceivedHistogram[];
  /** Every request body as received (decompressed), traces and metrics. */
  bodies: string[];
  /** Export requests received, kept or not. */
  received: number;
  close(): Promise<void>;
}

/** Starts the receiver on a free loopback port; `keep: false` answers and counts without keeping (benchmarks). */
export async function startOtlpReceiver(o: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const keep = o.keep ?? true;
  const spans: ReceivedSpan[] = [];
  const histograms: ReceivedHistogram[] = [];
  const bodies: string[] = [];
  const receiver: OtlpReceiver = {
    url: '',
    spans,
    histograms,
    bodies,
    received: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const text = raw.toString('utf8');
      receiver.received++;
      if (!keep) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      bodies.push(text);
      try {
        const body = JSON.parse(text) as Record<string, unknown>;
        if (req.url === '/v1/traces') spans.push(...spansOf(body));
        else if (req.url === '/v1/metrics') histograms.push(...histogramsOf(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"not OTLP JSON"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}`;
  return receiver;
}

/** An id as hex: the JSON encoding writes hex; base64 (the protobuf-JSON mapping) is converted. */
function hexId(id: unknown): string {
  const s = String(id ?? '');
  return /^[0-9a-f]*$/.test(s) ? s : Buffer.from(s, 'base64').toString('hex');
}

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = valueOf(kv.value);
  return out;
}

interface Resourced<T> {
  resource?: { attributes?: KeyValue[] };
  scopeSpans?: { spans?: T[] }[];
  scopeMetrics?: { metrics?: T[] }[];
}

function spansOf(body: Record<string, unknown>): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (body.resourceSpans ?? []) as Resourced<Record<string, unknown>>[]) {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const parent = s.parentSpanId ? hexId(s.parentSpanId) : '';
        out.push({
          service,
          traceId: hexId(s.traceId),
          spanId: hexId(s.spanId),
          ...(parent ? { parentSpanId: parent } : {}),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes as KeyValue[]),
          events: ((s.events ?? []) as { name: string; attributes?: KeyValue[] }[]).map((e) => ({
            name: e.name,
            attributes: attributesOf(e.attributes),
          })),
          ...(s.status ? { status: s.status as ReceivedSpan['status'] } : {}),
        });
      }
    }
  }
  return out;
}

function histogramsOf(body: Record<string, unknown>): ReceivedHistogram[] {
  const out: ReceivedHistogram[] = [];
  for (const rm of (body.resourceMetrics ?? []) as Resourced<Record<string, unknown>>[]) {
    const service = String(attributesOf(rm.resource?.attributes)['service.name'] ?? '');
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const h = m.histogram as { dataPoints?: Record<string, unknown>[] } | undefined;
        if (!h) continue;
        out.push({
          service,
          name: String(m.name),
          ...(m.unit ? { unit: String(m.unit) } : {}),
          points: (h.dataPoints ?? []).map((p) => ({
            attributes: attributesOf(p.attributes as KeyValue[]),
            count: Number(p.count ?? 0),
            ...(p.sum !== undefined ? { sum: Number(p.sum) } : {}),
            explicitBounds: ((p.explicitBounds ?? []) as number[]).map(Number),
          })),
        });
      }
    }
  }
  return out;
}
