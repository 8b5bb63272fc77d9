/** The manager's public surface: what controllers are written against, and what `operator/main.ts` runs. */
export { SharedCache, type InformerStats, type SharedCacheOptions } from './cache.js';
export { type ControllerStats } from './controller.js';
export { Manager, type LeaderElectionSettings, type ManagerOptions } from './manager.js';
export * from './types.js';
export { WorkQueue, type WorkQueueCounts, type WorkQueueOptions, type WorkQueueState } from './workqueue.js';
