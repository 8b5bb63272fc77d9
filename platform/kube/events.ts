/**
 * core/v1 Events, what `kubectl describe` shows. A repeat (same object, type, reason and message) bumps the
 * `count` and `lastTimestamp` of the Event already written instead of creating another, as client-go's
 * correlator does, so a reconcile that fails every few seconds leaves one line with `x42`, not 42 objects.
 *
 * Recording never throws and never blocks the caller: an Event is a courtesy to the user, and a reconcile must
 * not fail because the API server refused one. Failures are logged. An Event recorded with a signal (a reconcile's)
 * is dropped once that signal aborts.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeClient, KubeObject } from './client.js';
import { isAborted, isNotFound } from './errors.js';
import { Resources } from './resources.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  client: KubeClient;
  /** `source.component` of the Events (`steward-operator`, `steward-gateway`). */
  component: string;
  /** `source.host` and `reportingInstance`: the pod name. */
  host?: string;
  log?: Logger;
  now?: () => Date;
  /** Distinct (object, reason, message) triples remembered for aggregation; the oldest are forgotten. @default 4096 */
  maxTracked?: number;
}

interface Tracked {
  namespace: string;
  name: string;
  count: number;
}

export class KubeEventRecorder {
  private readonly tracked = new Map<string, Tracked>();
  /** One write at a time per triple, so a repeat never races the create of its first occurrence. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly now: () => Date;

  constructor(private readonly opts: EventRecorderOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** `signal`: the recording party's (a reconcile's); once aborted, the Event is not written. */
  event(object: KubeObject, type: EventType, reason: string, message: string, signal?: AbortSignal): void {
    const key = [
      object.metadata.uid ?? '',
      object.kind,
      object.metadata.namespace ?? '',
      object.metadata.name,
      type,
      reason,
      message,
    ].join('\u0000');
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.write(key, object, type, reason, message, signal))
      .catch((err: unknown) => {
        const fields = { err, reason, object: `${object.kind}/${object.metadata.name}` };
        if (isAborted(err)) this.opts.log?.debug(fields, 'event dropped: its recorder was cancelled');
        else this.opts.log?.warn(fields, 'event not recorded');
      })
      .finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    this.chains.set(key, next);
  }

  /** Resolves when every Event recorded so far was written (or failed): for shutdown and tests. */
  async flush(): Promise<void> {
    while (this.chains.size) await Promise.all(this.chains.values());
  }

  private async write(
    key: string,
    object: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const at = this.now().toISOString();
    const seen = this.tracked.get(key);
    if (seen) {
      try {
        await this.opts.client.patch(
          Resources.Event,
          seen.namespace,
          seen.name,
          { count: seen.count + 1, lastTimestamp: at },
          { signal },
        );
        seen.count++;
        // NB: re-inserted so the Map's order is least recently used first (the eviction order).
        this.tracked.delete(key);
        this.tracked.set(key, seen);
        return;
      } catch (err) {
        // The Event expired (the API server keeps them about an hour): write a new one.
        if (!isNotFound(err)) throw err;
        this.tracked.delete(key);
      }
    }
    const namespace = object.metadata.namespace || 'default';
    const name = `${object.metadata.name}.${Date.now().toString(16)}${randomBytes(4).toString('hex')}`;
    await this.opts.client.create(
      Resources.Event,
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          namespace: object.metadata.namespace,
          name: object.metadata.name,
          uid: object.metadata.uid,
          resourceVersion: object.metadata.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: at,
        lastTimestamp: at,
        source: { component: this.opts.component, ...(this.opts.host ? { host: this.opts.host } : {}) },
        reportingComponent: this.opts.component,
        reportingInstance: this.opts.host ?? '',
      },
      { signal },
    );
    this.tracked.set(key, { namespace, name, count: 1 });
    const max = this.opts.maxTracked ?? 4096;
    while (this.tracked.size > max) this.tracked.delete(this.tracked.keys().next().value!);
  }
}
