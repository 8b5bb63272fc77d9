/**
 * Harness controls for reliability tests: errors injected into the next N matching requests (409, 500,
 * 429 with Retry-After, any Status), dropped watch streams, added latency, and a bounded request log.
 */
import {
  ApiError,
  conflict,
  internalError,
  OPTIMISTIC_LOCK_MESSAGE,
  serviceUnavailable,
  tooManyRequests,
  type Status,
} from './status-errors.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Which requests a fault or latency applies to; every field given must match. */
export interface RequestMatch {
  verb?: Verb | Verb[];
  /** Plural resource name (`configmaps`), optionally with `/subresource` (`deployments/status`). */
  resource?: string;
  group?: string;
  namespace?: string;
  name?: string;
}

export interface RequestFacts {
  verb: Verb;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export type FaultKind =
  | { status: 409; message?: string }
  | { status: 429; retryAfterSeconds?: number; message?: string }
  | { status: 500 | 503; message?: string }
  | { status: number; body: Status }
  /** Watch only: the stream opens, sends `afterEvents` events (default 0), then the connection is cut. */
  | { dropWatch: true; afterEvents?: number };

export type FaultSpec = RequestMatch &
  FaultKind & {
    /** How many matching requests fail. @default 1 */
    times?: number;
  };

interface ActiveFault {
  spec: FaultSpec;
  left: number;
}

export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  query: string;
  verb?: Verb;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  status: number;
  durationMs: number;
  userAgent: string;
  /** Set when an injected fault answered the request. */
  fault?: string;
  contentType?: string;
}

export function matches(m: RequestMatch, r: RequestFacts): boolean {
  if (m.verb !== undefined && !(Array.isArray(m.verb) ? m.verb.includes(r.verb) : m.verb === r.verb)) return false;
  if (m.resource !== undefined) {
    const full = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
    if (m.resource !== full && !(m.resource === r.resource && !m.resource.includes('/'))) return false;
  }
  if (m.group !== undefined && m.group !== r.group) return false;
  if (m.namespace !== undefined && m.namespace !== r.namespace) return false;
  if (m.name !== undefined && m.name !== r.name) return false;
  return true;
}

export type FaultOutcome =
  { kind: 'error'; error: ApiError; label: string } | { kind: 'dropWatch'; afterEvents: number; label: string };

export class Faults {
  private active: ActiveFault[] = [];
  private latencies: { match: RequestMatch; ms: number }[] = [];

  /** Fails the next `times` requests that match. Returns a function that removes the fault. */
  inject(spec: FaultSpec): () => void {
    const f: ActiveFault = { spec, left: spec.times ?? 1 };
    if (!Number.isInteger(f.left) || f.left < 1) throw new RangeError('times must be a positive integer');
    this.active.push(f);
    return () => {
      this.active = this.active.filter((x) => x !== f);
    };
  }

  /** Adds `ms` of latency to every matching request (all requests when `match` is omitted). */
  latency(ms: number, match: RequestMatch = {}): () => void {
    if (!(ms >= 0)) throw new RangeError('latency must be >= 0 ms');
    const entry = { match, ms };
    this.latencies.push(entry);
    return () => {
      this.latencies = this.latencies.filter((x) => x !== entry);
    };
  }

  clear(): void {
    this.active = [];
    this.latencies = [];
  }

  /** Faults still armed, with how many requests each will still fail. */
  pending(): { spec: FaultSpec; left: number }[] {
    return this.active.map((f) => ({ spec: f.spec, left: f.left }));
  }

  delayFor(r: RequestFacts): number {
    return this.latencies.filter((l) => matches(l.match, r)).reduce((sum, l) => sum + l.ms, 0);
  }

  /** Consumes one use of the first armed fault that matches. */
  take(r: RequestFacts): FaultOutcome | undefined {
    const f = this.active.find((x) => matches(x.spec, r) && (!('dropWatch' in x.spec) || r.verb === 'watch'));
    if (!f) return undefined;
    f.left--;
    if (f.left <= 0) this.active = this.active.filter((x) => x !== f);
    const s = f.spec;
    if ('dropWatch' in s) return { kind: 'dropWatch', afterEvents: s.afterEvents ?? 0, label: 'dropWatch' };
    if ('body' in s)
      return { kind: 'error', error: new ApiError({ ...s.body, code: s.status }), label: String(s.status) };
    const gr = { group: r.group, resource: r.resource };
    let error: ApiError;
    if (s.status === 409) error = conflict(gr, r.name, s.message ?? OPTIMISTIC_LOCK_MESSAGE);
    else if (s.status === 429)
      error = tooManyRequests(s.message ?? 'Too many requests, please try again later.', s.retryAfterSeconds ?? 1);
    else if (s.status === 503)
      error = serviceUnavailable(s.message ?? 'the server is currently unable to handle the request');
    else error = internalError(s.message ?? 'injected fault');
    return { kind: 'error', error, label: String(s.status) };
  }
}

/** A bounded log of the requests the server answered, oldest first. */
export class RequestLog {
  private items: LoggedRequest[] = [];

  constructor(private readonly limit = 10_000) {}

  add(r: LoggedRequest): void {
    this.items.push(r);
    if (this.items.length > this.limit) this.items.splice(0, this.items.length - this.limit);
  }

  all(): readonly LoggedRequest[] {
    return this.items;
  }

  filter(m: RequestMatch & { method?: string }): LoggedRequest[] {
    return this.items.filter((r) => {
      if (m.method && r.method !== m.method) return false;
      if (!r.verb) return m.verb === undefined && m.resource === undefined;
      return matches(m, {
        verb: r.verb,
        group: r.group ?? '',
        resource: r.resource ?? '',
        subresource: r.subresource ?? '',
        namespace: r.namespace ?? '',
        name: r.name ?? '',
      });
    });
  }

  count(m: RequestMatch & { method?: string } = {}): number {
    return this.filter(m).length;
  }

  clear(): void {
    this.items = [];
  }
}
