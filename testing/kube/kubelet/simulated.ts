/** `simulated` mode: a pod's status as if its containers had started and passed their probes. */
import { isObject, type JsonObject } from '../schema/types.js';

export function simulatedStatus(pod: JsonObject, ip: string, nodeIP: string, now: string): JsonObject {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const containers = (Array.isArray(spec.containers) ? spec.containers : []).map((c) => (isObject(c) ? c : {}));
  const condition = (type: string): JsonObject => ({
    type,
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
  });
  return {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
    hostIP: nodeIP,
    hostIPs: [{ ip: nodeIP }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: now,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: `${String(c.image)}@sha256:${'0'.repeat(64)}`,
      containerID: `steward://simulated/${String(c.name)}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
      lastState: {},
    })),
  };
}
