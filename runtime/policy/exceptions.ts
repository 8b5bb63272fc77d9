/**
 * PolicyExceptions (api/policyexception.ts) as the governed call reads them: which exception, if any, exempts one
 * call from one policy. On the hot path (every policy of every governed call), so the source's documents are
 * indexed once per change (namespace → policy name → exceptions) and a lookup is two map reads and a few set
 * reads, with no allocation. Expiry needs no timer: each lookup compares `expiresAt` with the clock it is given.
 *
 * Semantics (docs/policy-exceptions.md):
 * - an exception exempts only from Policies of its own namespace; a policy passed without a namespace (the built-in
 *   pack's, which are not objects) counts as one of the runtime's namespace — the source's in a cluster, `default`
 *   standalone: the namespace the sources show the pack's policies in;
 * - every `spec.match` list given must contain the call's value (AND across fields, OR within one); a call without
 *   a value for a given field does not match it;
 * - an exception applies while `now < expiresAt` (a permanent one without expiresAt, always);
 * - of several that apply, the first by namespace and name is returned.
 */
import type { PolicyExceptionResource, PolicySurface } from '../../api/index.js';
import { DEFAULT_NAMESPACE, type DeclarativeSource } from '../source/index.js';

/** The policy being evaluated: its `metadata.name` and `metadata.namespace` (absent: the pack's). */
export interface ExceptionPolicyRef {
  name: string;
  namespace?: string;
}

/** What an exception can match of a call; the identity fields come from the verified credential only. */
export interface ExceptionCall {
  organizationId?: string;
  tenantId?: string;
  /** The API client id. */
  clientId?: string;
  /** The AgentConfig the call runs as (plan steps, pool agents). */
  agent?: string;
  surface: PolicySurface;
  /** The Connector of an MCP or connector call. */
  connector?: string;
}

/** What an exception can match of a call, from the policy input and its scope (identity fields: verified only). */
export function exceptionCall(
  input: {
    client?: { id: string };
    client_id?: string;
    context?: Record<string, unknown>;
    mcp?: Record<string, unknown>;
  },
  scope: { organizationId?: string; tenantId?: string; surface: PolicySurface },
): ExceptionCall {
  return {
    organizationId: scope.organizationId,
    tenantId: scope.tenantId,
    clientId: nonEmpty(input.client?.id) ?? nonEmpty(input.client_id),
    agent: nonEmpty(input.context?.agent),
    surface: scope.surface,
    connector: nonEmpty(input.mcp?.connector),
  };
}

const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The exception that exempts a decision: what the engine records beside it (audit, logs, the answer). */
export interface AppliedException {
  readonly name: string;
  readonly namespace: string;
  readonly reason: string;
}

/** An exception in force, for /health and logs. */
export interface ActiveException extends AppliedException {
  readonly policies: readonly string[];
  /** RFC 3339; absent for a permanent exception without one. */
  readonly expiresAt?: string;
}

export interface PolicyExceptionsOptions {
  source: DeclarativeSource;
  /** @default the current time */
  now?: () => Date;
  /**
   * The namespace of policies passed without one (the built-in pack's). @default the source's namespace, else
   * `default` (standalone, where the folder source puts the pack's documents)
   */
  packNamespace?: string;
}

interface Entry {
  /** Returned as is by every lookup that finds it (frozen). */
  readonly applied: AppliedException;
  readonly doc: PolicyExceptionResource;
  /** Infinity for a permanent exception without expiresAt. */
  readonly expiresAtMs: number;
  readonly organizations?: ReadonlySet<string>;
  readonly tenants?: ReadonlySet<string>;
  readonly clients?: ReadonlySet<string>;
  readonly agents?: ReadonlySet<string>;
  readonly surfaces?: ReadonlySet<string>;
  readonly connectors?: ReadonlySet<string>;
}

/** namespace → policy name → the exceptions naming it, in namespace and name order. */
type Index = Map<string, Map<string, Entry[]>>;

/**
 * The PolicyExceptions of a source, for the policy engine: `exceptionFor(policy, call, now)` per policy and call.
 * The index is rebuilt lazily, on the first lookup after the source reported a PolicyException change, so a
 * change applies without a restart. `close()` stops listening to the source.
 */
export class PolicyExceptions {
  private index: Index = new Map();
  private entries: readonly Entry[] = [];
  /** Bumped by every PolicyException event of the source; the index is of `built`. */
  private version = 0;
  private built = -1;
  private readonly now: () => Date;
  private readonly packNamespace: string;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PolicyExceptionsOptions) {
    this.now = options.now ?? (() => new Date());
    this.packNamespace = options.packNamespace ?? options.source.namespace ?? DEFAULT_NAMESPACE;
    this.unsubscribe = options.source.subscribe((events) => {
      for (const e of events) if (e.resource.kind === 'PolicyException') return void this.version++;
    });
  }

  /**
   * The exception that exempts `call` from `policy` at `now`, or undefined: the policy applies as usual. Pass one
   * `now` for every policy of one call, so that they all see the same instant.
   */
  exceptionFor(policy: ExceptionPolicyRef, call: ExceptionCall, now: Date = this.now()): AppliedException | undefined {
    if (this.built !== this.version) this.rebuild();
    if (this.entries.length === 0) return undefined;
    const list = this.index.get(policy.namespace ?? this.packNamespace)?.get(policy.name);
    if (list === undefined) return undefined;
    const t = now.getTime();
    for (const e of list) if (t < e.expiresAtMs && matches(e, call)) return e.applied;
    return undefined;
  }

  /** Whether any exception exists at all (expired ones included): false lets a caller skip lookups. */
  get empty(): boolean {
    if (this.built !== this.version) this.rebuild();
    return this.entries.length === 0;
  }

  /** The exceptions in force at `now` (not expired), in namespace and name order. */
  active(now: Date = this.now()): ActiveException[] {
    if (this.built !== this.version) this.rebuild();
    const t = now.getTime();
    return this.entries
      .filter((e) => t < e.expiresAtMs)
      .map((e) => ({
        ...e.applied,
        policies: e.doc.spec.policies,
        ...(e.doc.spec.expiresAt === undefined ? {} : { expiresAt: e.doc.spec.expiresAt }),
      }));
  }

  close(): void {
    this.unsubscribe();
  }

  private rebuild(): void {
    const version = this.version;
    const docs = this.options.source
      .list('PolicyException')
      .slice()
      .sort((a, b) => compare(namespaceOf(a), namespaceOf(b)) || compare(a.metadata.name, b.metadata.name));
    const index: Index = new Map();
    const entries = docs.map(entryOf);
    for (const e of entries) {
      let byPolicy = index.get(e.applied.namespace);
      if (!byPolicy) index.set(e.applied.namespace, (byPolicy = new Map()));
      for (const name of new Set(e.doc.spec.policies)) {
        const list = byPolicy.get(name);
        if (list) list.push(e);
        else byPolicy.set(name, [e]);
      }
    }
    this.index = index;
    this.entries = entries;
    this.built = version;
  }
}

const namespaceOf = (d: PolicyExceptionResource) => d.metadata.namespace ?? DEFAULT_NAMESPACE;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const setOf = (values: readonly string[] | undefined) => (values === undefined ? undefined : new Set(values));

function entryOf(doc: PolicyExceptionResource): Entry {
  const m = doc.spec.match;
  return {
    applied: Object.freeze({ name: doc.metadata.name, namespace: namespaceOf(doc), reason: doc.spec.reason }),
    doc,
    expiresAtMs: doc.spec.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(doc.spec.expiresAt),
    organizations: setOf(m.organizations),
    tenants: setOf(m.tenants),
    clients: setOf(m.clients),
    agents: setOf(m.agents),
    surfaces: setOf(m.surfaces),
    connectors: setOf(m.connectors),
  };
}

/** A field given must hold the call's value; an absent value matches no list. */
const holds = (set: ReadonlySet<string> | undefined, value: string | undefined) =>
  set === undefined || (value !== undefined && set.has(value));

function matches(e: Entry, c: ExceptionCall): boolean {
  return (
    holds(e.surfaces, c.surface) &&
    holds(e.organizations, c.organizationId) &&
    holds(e.tenants, c.tenantId) &&
    holds(e.clients, c.clientId) &&
    holds(e.agents, c.agent) &&
    holds(e.connectors, c.connector)
  );
}
