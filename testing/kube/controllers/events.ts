/**
 * `recordEvent`: writes a core/v1 Event about an object, as client-go's event recorder does — a repeat
 * of the same (object, type, reason, message) bumps `count` and `lastTimestamp` instead of adding a new
 * Event, which is what `kubectl describe` shows as "x3 over 10s". Shared with the simulated kubelet.
 */
import { createHash } from 'node:crypto';
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import type { JsonObject } from '../schema/types.js';
import { meta, nameOf, namespaceOf, statusCode } from './util.js';

export interface EventRecord {
  /** The object the event is about (needs apiVersion, kind and metadata). */
  regarding: JsonObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Reporting component, e.g. `deployment-controller` or `kubelet`. */
  component: string;
  /** `spec.containers{app}` for container events. */
  fieldPath?: string;
  /** The node for kubelet events (source.host). */
  host?: string;
}

function eventName(e: EventRecord): string {
  const digest = createHash('sha256')
    .update([meta(e.regarding).uid, e.type, e.reason, e.message, e.fieldPath ?? ''].join('\0'))
    .digest('hex');
  return `${nameOf(e.regarding)}.${digest.slice(0, 16)}`;
}

/** Writes (or counts again) an Event; failures are logged, never thrown (events are best effort). */
export function recordEvent(
  api: ClusterApi,
  clock: TestClock,
  e: EventRecord,
  log: (msg: string) => void = () => {},
): void {
  const namespace = namespaceOf(e.regarding) || 'default';
  const name = eventName(e);
  const now = clock.nowIso();
  try {
    const existing = api.tryGet('events', namespace, name);
    if (existing) {
      api.update(
        'events',
        { ...existing, count: Number(existing.count ?? 1) + 1, lastTimestamp: now },
        { fieldManager: e.component },
      );
      return;
    }
    const m = meta(e.regarding);
    const involvedObject: JsonObject = {
      kind: e.regarding.kind,
      namespace: m.namespace,
      name: m.name,
      uid: m.uid,
      apiVersion: e.regarding.apiVersion,
      resourceVersion: m.resourceVersion,
    };
    if (e.fieldPath) involvedObject.fieldPath = e.fieldPath;
    const source: JsonObject = { component: e.component };
    if (e.host) source.host = e.host;
    api.create(
      'events',
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject,
        reason: e.reason,
        message: e.message,
        type: e.type,
        source,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        reportingComponent: e.component,
        reportingInstance: e.host ?? '',
      },
      { fieldManager: e.component },
    );
  } catch (err) {
    // NB: a namespace being deleted still takes events; anything else is lost, as upstream drops them.
    log(
      `event ${e.reason} for ${namespace}/${nameOf(e.regarding)} not recorded (${statusCode(err) ?? 'error'}): ${(err as Error).message}`,
    );
  }
}
