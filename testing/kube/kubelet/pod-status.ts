/** Pure pieces of a pod's status: phase and conditions from its containers' statuses. */
import type { JsonObject } from '../schema/types.js';

export interface ContainerView {
  ready: boolean;
  /** Has run at least once. */
  ran: boolean;
  /** Will not run again. */
  finished: boolean;
  exitCode: number | undefined;
}

export function podPhase(containers: ContainerView[]): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  if (containers.length > 0 && containers.every((c) => c.finished))
    return containers.every((c) => c.exitCode === 0) ? 'Succeeded' : 'Failed';
  return containers.some((c) => c.ran) ? 'Running' : 'Pending';
}

/** Keeps lastTransitionTime of conditions whose status did not change. */
export class Conditions {
  private readonly byType = new Map<string, JsonObject>();

  set(type: string, status: boolean, now: string, reason?: string): void {
    const value = status ? 'True' : 'False';
    const old = this.byType.get(type);
    if (old && old.status === value && old.reason === reason) return;
    const c: JsonObject = {
      type,
      status: value,
      lastProbeTime: null,
      lastTransitionTime: old?.status === value ? old.lastTransitionTime : now,
    };
    if (reason) c.reason = reason;
    this.byType.set(type, c);
  }

  list(): JsonObject[] {
    const order = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
    return order.flatMap((t) => (this.byType.has(t) ? [this.byType.get(t)!] : []));
  }
}
