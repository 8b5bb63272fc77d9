/** Every built-in resource, in the order discovery lists their groups (as the real server does). */
import type { ResourceType } from '../registry.js';
import { APPS_KINDS } from './apps.js';
import { jobs } from './batch.js';
import { endpoints } from './endpoints.js';
import { CORE_KINDS } from './core.js';
import { events, eventsV1 } from './events.js';
import { nodes } from './node.js';
import { pods } from './pod.js';
import { customresourcedefinitions } from './crd.js';
import { OTHER_KINDS } from './others.js';
import { services } from './service.js';

export function builtinTypes(): ResourceType[] {
  const byGroup = new Map<string, ResourceType[]>();
  for (const t of [
    ...CORE_KINDS,
    nodes,
    pods,
    events,
    services,
    endpoints,
    ...APPS_KINDS,
    jobs,
    eventsV1,
    ...OTHER_KINDS,
    customresourcedefinitions,
  ]) {
    const list = byGroup.get(t.group) ?? [];
    list.push(t);
    byGroup.set(t.group, list);
  }
  const order = [
    '',
    'apps',
    'batch',
    'events.k8s.io',
    'networking.k8s.io',
    'policy',
    'rbac.authorization.k8s.io',
    'apiextensions.k8s.io',
    'coordination.k8s.io',
    'discovery.k8s.io',
  ];
  return order.flatMap((g) => byGroup.get(g) ?? []);
}

export { CRD_CLEANUP_FINALIZER, setCondition } from './crd.js';
export { NAMESPACE_NAME_LABEL } from './core.js';
