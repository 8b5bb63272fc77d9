/**
 * Events the kubelet and the scheduler report about pods, through the controllers' recorder (a repeat
 * counts up on the same Event, as client-go's recorder does).
 */
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import { recordEvent } from '../controllers/index.js';
import type { JsonObject } from '../schema/types.js';

export type EventRecorder = (
  pod: JsonObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  fieldPath?: string,
) => void;

/** A recorder for `component` (`kubelet` events carry the node as source.host). */
export function kubeletEvents(
  api: ClusterApi,
  clock: TestClock,
  node: string,
  component = 'kubelet',
  log?: (msg: string) => void,
): EventRecorder {
  return (pod, type, reason, message, fieldPath) => {
    const regarding: JsonObject = { ...pod, apiVersion: 'v1', kind: 'Pod' };
    recordEvent(
      api,
      clock,
      { regarding, type, reason, message, component, fieldPath, host: component === 'kubelet' ? node : undefined },
      log,
    );
  };
}
