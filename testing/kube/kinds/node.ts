/** core/v1 Node (cluster-scoped): the kubelet registers one and keeps its Ready condition. */
import { ageColumn, arr, builtin, col, meta, obj } from './define.js';

function nodeStatus(o: Parameters<Parameters<typeof col>[2]>[0]): string {
  const ready = arr(obj(o.status).conditions)
    .map(obj)
    .find((c) => c.type === 'Ready');
  const text = ready?.status === 'True' ? 'Ready' : 'NotReady';
  return obj(o.spec).unschedulable === true ? `${text},SchedulingDisabled` : text;
}

export const nodes = builtin({
  group: '',
  version: 'v1',
  resource: 'nodes',
  kind: 'Node',
  model: 'V1Node',
  namespaced: false,
  shortNames: ['no'],
  status: true,
  columns: [
    col('Status', 'string', nodeStatus),
    col('Roles', 'string', (o) => {
      const roles = Object.keys(obj(meta(o).labels))
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length));
      return roles.length ? roles.join(',') : '<none>';
    }),
    ageColumn(),
    col('Version', 'string', (o) => obj(obj(o.status).nodeInfo).kubeletVersion ?? ''),
    col(
      'Internal-IP',
      'string',
      (o) =>
        arr(obj(o.status).addresses)
          .map(obj)
          .find((a) => a.type === 'InternalIP')?.address ?? '<none>',
      1,
    ),
    col('External-IP', 'string', () => '<none>', 1),
    col('OS-Image', 'string', (o) => obj(obj(o.status).nodeInfo).osImage ?? '', 1),
    col('Kernel-Version', 'string', (o) => obj(obj(o.status).nodeInfo).kernelVersion ?? '', 1),
    col('Container-Runtime', 'string', (o) => obj(obj(o.status).nodeInfo).containerRuntimeVersion ?? '', 1),
  ],
});
