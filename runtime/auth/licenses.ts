import { timingSafeEqual } from 'node:crypto';
import { verifyLicenseKey, type LicenseResource, type LicenseTier } from '../../api/index.js';
import type { DeclarativeSource } from '../source/index.js';

/** What the gateway knows about one License document. */
export interface LicenseState {
  name: string;
  namespace: string;
  organizationId: string;
  valid: boolean;
  tier?: LicenseTier;
  maxNodes?: number;
  expiresAt?: Date;
  /** Why the license is not valid. */
  reason?: string;
  /** The key, when it could be resolved; compared with presented keys. */
  key?: string;
}

/** Resolves a Secret key reference; in standalone there is none, in a cluster the Kubernetes source. */
export type SecretResolver = (namespace: string, name: string, key: string) => string | undefined;

export interface LicenseRegistryOptions {
  source: DeclarativeSource;
  /** The environment as parsed once by main, for `keyFromEnv`. */
  env: Readonly<Record<string, string | undefined>>;
  signingSecret: string | undefined;
  resolveSecret?: SecretResolver;
  now: () => Date;
}

/**
 * The License documents of the source with their keys resolved and verified. Rebuilt when the source changes;
 * validity (expiry) is re-judged on every lookup against the clock.
 */
export class LicenseRegistry {
  private states: LicenseState[] = [];
  private readonly unsubscribe: () => void;

  constructor(private readonly options: LicenseRegistryOptions) {
    this.rebuild();
    this.unsubscribe = options.source.subscribe((events) => {
      if (events.some((e) => e.resource.kind === 'License')) this.rebuild();
    });
  }

  /** True when at least one License is configured: the gateway then requires credentials. */
  get configured(): boolean {
    return this.states.length > 0;
  }

  list(): LicenseState[] {
    return this.states.map((s) => this.judge(s));
  }

  /** The License whose key equals `key` (constant-time per candidate), judged now. */
  findByKey(key: string): LicenseState | undefined {
    const hit = this.states.find((s) => s.key !== undefined && safeEqual(s.key, key));
    return hit ? this.judge(hit) : undefined;
  }

  /**
   * Licenses whose key cannot be used at all (unset, unreadable, malformed, signed with another secret), as
   * opposed to an expired key: every call with them fails, so /health reports them.
   */
  unusable(): LicenseState[] {
    const now = this.options.now().getTime();
    return this.list().filter((l) => !l.valid && !(l.expiresAt !== undefined && l.expiresAt.getTime() <= now));
  }

  close(): void {
    this.unsubscribe();
  }

  private rebuild(): void {
    this.states = this.options.source.list('License').map((doc) => this.resolve(doc));
  }

  private resolve(doc: LicenseResource): LicenseState {
    const base = {
      name: doc.metadata.name,
      namespace: doc.metadata.namespace ?? 'default',
      organizationId: doc.spec.organizationId,
      valid: false,
    };
    let key: string | undefined;
    if (doc.spec.keyFromEnv) {
      // NB: a key pasted into an environment file or a Secret often ends in a newline; keys contain no spaces.
      key = this.options.env[doc.spec.keyFromEnv]?.trim();
      if (!key) return { ...base, reason: `environment variable ${doc.spec.keyFromEnv} is not set` };
    } else if (doc.spec.keySecretRef) {
      const ref = doc.spec.keySecretRef;
      key = this.options.resolveSecret?.(base.namespace, ref.name, ref.key)?.trim();
      if (!key)
        return {
          ...base,
          reason: `Secret ${ref.name} key ${ref.key} could not be read (Secret references resolve in a cluster; use keyFromEnv standalone)`,
        };
    }
    return { ...base, key };
  }

  private judge(state: LicenseState): LicenseState {
    if (state.key === undefined) return state;
    if (!this.options.signingSecret)
      return {
        ...state,
        valid: false,
        reason: 'no license signing secret is configured (STEWARD_LICENSE_SIGNING_SECRET)',
      };
    const check = verifyLicenseKey(state.key, this.options.signingSecret, this.options.now());
    if (!check.ok)
      return {
        ...state,
        valid: false,
        reason: check.reason,
        tier: check.info?.tier,
        maxNodes: check.info?.maxNodes,
        expiresAt: check.info?.expiresAt,
      };
    return {
      ...state,
      valid: true,
      reason: undefined,
      tier: check.tier,
      maxNodes: check.maxNodes,
      expiresAt: check.expiresAt,
    };
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
