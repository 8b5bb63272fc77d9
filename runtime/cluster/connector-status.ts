/**
 * `Connector.status.{status, lastHealthCheck, latencyMs, message, tools}` from the connector registry's health checks
 * and (`tools`, type mcp) its pinned tool definitions,
 * written by one gateway replica (the holder of the Lease `O-gateway-status`) by merge patch. A check that changes
 * neither the status nor the message writes nothing, except that lastHealthCheck is refreshed at most every
 * `refreshMs`: a steady state makes (almost) no writes.
 */
import type { ConnectorResource } from '../../api/index.js';
import { jsonEqual, patchStatus, Resources, type KubeClient, type KubeObject } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import type { ConnectorStatus, ConnectorStatusReporter } from '../connectors/status.js';
import { StatusThrottle } from './throttle.js';

export interface ConnectorStatusPublisherOptions {
  client: KubeClient;
  /** The Connector objects as the server holds them (the Kubernetes source's cache). */
  source: { readonly namespace: string; object(kind: 'Connector', name: string): KubeObject | undefined };
  /** STEWARD_STATUS_MIN_INTERVAL_MS */
  minIntervalMs: number;
  /** Least age of the written lastHealthCheck before an unchanged result refreshes it. @default 60s */
  refreshMs?: number;
  fieldManager?: string;
  log?: Logger;
}

/** The optional fields of `status.tools`. */
const CLEARED_TOOL_FIELDS = { approved: null, approvedAt: null, approvedBy: null, changes: null, unverified: null };

type ConnectorObject = KubeObject & { status?: ConnectorResource['status'] };

/** The registry's reporter: remembers every result, and writes them while this replica leads. */
export class ConnectorStatusPublisher implements ConnectorStatusReporter {
  private readonly latest = new Map<string, ConnectorStatus>();
  private readonly throttle: StatusThrottle;
  private leading = false;
  private seed: (() => Iterable<[string, ConnectorStatus]>) | undefined;

  constructor(private readonly opts: ConnectorStatusPublisherOptions) {
    this.throttle = new StatusThrottle(opts.minIntervalMs, opts.log);
  }

  /** Where the current states come from on becoming leader (the registry: connectors checked before, broken ones). */
  track(seed: () => Iterable<[string, ConnectorStatus]>): void {
    this.seed = seed;
  }

  report(name: string, status: ConnectorStatus): void {
    this.latest.set(name, status);
    if (this.leading) this.consider(name);
  }

  /** Starts (true) or stops (false) writing; on start, what differs is written. */
  setLeading(leading: boolean): void {
    this.leading = leading;
    if (!leading) {
      this.throttle.cancel();
      return;
    }
    for (const [name, status] of this.seed?.() ?? [])
      if (!this.latest.has(name) && status.status !== 'unknown') this.latest.set(name, status);
    for (const name of this.latest.keys()) this.consider(name);
  }

  close(): void {
    this.leading = false;
    this.throttle.close();
  }

  private consider(name: string): void {
    const obj = this.opts.source.object('Connector', name) as ConnectorObject | undefined;
    const status = this.latest.get(name);
    if (!obj || !status) return;
    if (this.differs(obj.status, status)) this.throttle.schedule(name, () => this.write(name));
  }

  private differs(written: ConnectorObject['status'], s: ConnectorStatus): boolean {
    if (!written?.status || written.status !== s.status || (written.message ?? undefined) !== (s.message ?? undefined))
      return true;
    if (!jsonEqual(written.tools, s.tools)) return true;
    if (s.lastHealthCheck === undefined) return false;
    const age = Date.parse(s.lastHealthCheck) - Date.parse(written.lastHealthCheck ?? '');
    return !Number.isFinite(age) || age >= (this.opts.refreshMs ?? 60_000);
  }

  private async write(name: string): Promise<void> {
    const obj = this.opts.source.object('Connector', name) as ConnectorObject | undefined;
    const s = this.latest.get(name);
    if (!this.leading || !obj || !s || !this.differs(obj.status, s)) return;
    const fields: Record<string, unknown> = {
      status: s.status,
      lastHealthCheck: s.lastHealthCheck ?? null,
      latencyMs: s.latencyMs ?? null,
      // NB: null removes a former error message (merge patch).
      message: s.message ?? null,
      // NB: a merge patch merges objects: a field the new `tools` lacks is nulled, or the old value would stay.
      tools: s.tools ? { ...CLEARED_TOOL_FIELDS, ...s.tools } : null,
    };
    const result = await patchStatus(
      this.opts.client,
      Resources.Connector,
      obj as KubeObject & { status?: Record<string, unknown> },
      fields,
      {
        fieldManager: this.opts.fieldManager ?? 'steward-gateway',
      },
    );
    if (result === 'gone') this.latest.delete(name);
    else if (result === 'updated')
      this.opts.log?.debug({ connector: name, status: s.status }, 'connector status written');
  }
}
