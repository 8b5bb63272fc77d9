/** The scheduler: every pod without spec.nodeName is bound to the (only) node, with a Scheduled event. */
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import { isObject, type JsonObject } from '../schema/types.js';
import type { EventRecorder } from './events.js';

/** Binds `pod` to `node` when it is unscheduled; a conflict means a newer copy is on its way. */
export function schedule(
  api: ClusterApi,
  clock: TestClock,
  node: string,
  pod: JsonObject,
  record: EventRecorder,
): void {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const meta = isObject(pod.metadata) ? pod.metadata : {};
  if (spec.nodeName || meta.deletionTimestamp) return;
  if (spec.schedulerName && spec.schedulerName !== 'default-scheduler') return;
  try {
    const bound = api.update('pods', { ...pod, spec: { ...spec, nodeName: node } }, { fieldManager: 'kube-scheduler' });
    api.patch(
      'pods',
      String(meta.namespace),
      String(meta.name),
      {
        status: {
          conditions: [
            { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: clock.nowIso() },
          ],
        },
      },
      { subresource: 'status', fieldManager: 'kube-scheduler' },
    );
    record(
      bound,
      'Normal',
      'Scheduled',
      `Successfully assigned ${String(meta.namespace)}/${String(meta.name)} to ${node}`,
    );
  } catch {
    // Conflict or gone: the watch brings the newer state.
  }
}
