/**
 * The Steward test Kubernetes API server: start one with `startTestCluster`, point kubectl or
 * client-node at its kubeconfig, and drive faults, time and state from the returned handle.
 */
export { startTestCluster, loadCrdFiles, type TestCluster, type TestClusterOptions, type Snapshot } from './cluster.js';
export { ClusterApi } from './client.js';
export { TestClock } from './clock.js';
export { Faults, RequestLog, type FaultSpec, type LoggedRequest, type RequestMatch, type Verb } from './faults.js';
export { Registry, type KindInfo, type ResourceType, type ResourceRef, type PrinterColumn } from './registry.js';
export { ApiError, isApiError, type Status, type StatusCause } from './status-errors.js';
export type { WatchEvent, WatchOptions, WatchHandle } from './store/watch.js';
export type { ListOptions, ListResult, WriteOptions } from './store/objects.js';
export type { DeleteOptions, DeleteResult } from './store/delete.js';
export type { LogProvider } from './http/context.js';
export type { WorkloadOptions, Workloads } from './workloads.js';
export { livePids, STEWARD_IMAGE } from './kubelet/index.js';
export { TEST_TOKEN, kubeconfigYaml } from './kubeconfig.js';
