/** The Node object the kubelet registers: Ready, with capacity and the host's loopback as its address. */
import { arch, release } from 'node:os';
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import type { JsonObject } from '../schema/types.js';

export const NODE_IP = '127.0.0.1';

export function registerNode(api: ClusterApi, clock: TestClock, name: string): void {
  const now = clock.nowIso();
  if (!api.tryGet('nodes', undefined, name)) {
    api.create(
      'nodes',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': arch() === 'x64' ? 'amd64' : arch(),
          },
        },
        spec: {},
      },
      { fieldManager: 'kubelet' },
    );
  }
  const capacity: JsonObject = { cpu: '2', memory: '8Gi', pods: '1000', 'ephemeral-storage': '100Gi' };
  const condition = (type: string, status: string, reason: string, message: string): JsonObject => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  api.patch(
    'nodes',
    undefined,
    name,
    {
      status: {
        capacity,
        allocatable: capacity,
        conditions: [
          condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
          condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
        ],
        addresses: [
          { type: 'InternalIP', address: NODE_IP },
          { type: 'Hostname', address: name },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.32.0-steward',
          kubeProxyVersion: 'v1.32.0-steward',
          containerRuntimeVersion: 'steward://processes',
          operatingSystem: 'linux',
          architecture: arch(),
          kernelVersion: release(),
          osImage: 'Steward test node',
          machineID: '',
          systemUUID: '',
          bootID: '',
        },
      },
    },
    { subresource: 'status', fieldManager: 'kubelet' },
  );
}
