export {
  KubeClient,
  type CallOptions,
  type KubeClientOptions,
  type KubeList,
  type KubeObject,
  type ListOptions,
  type OwnerReference,
  type PatchType,
  type WriteOptions,
} from './client.js';
export { KubeApiError, isAborted, isAlreadyExists, isConflict, isGone, isNotFound } from './errors.js';
export { Informer, objectKey, type InformerEvent, type InformerListener, type InformerOptions } from './informer.js';
export {
  Resources,
  apiVersionOf,
  collectionPath,
  objectPath,
  type ResourceName,
  type ResourceRef,
} from './resources.js';
export { jsonEqual, patchStatus, updateStatus, type StatusWrite } from './status.js';
export { TokenBucket } from './token-bucket.js';
export { KubeEventRecorder, type EventRecorderOptions, type EventType } from './events.js';
export { LeaderElector, type LeaderElectorOptions } from './leader.js';
export { leaseExpired, leaseSpec, microTime, type LeaseSpec } from './lease.js';
