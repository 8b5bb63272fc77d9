/**
 * The orchestrator's HTTP contract: the zod schemas of its request and answer bodies and their limits, one module
 * per resource area under ./orchestrator/. The route table (./orchestrator/routes.ts) and the orchestrator's routes
 * import them from here.
 */
export * from './orchestrator/health.js';
export * from './orchestrator/registry.js';
export * from './orchestrator/plan.js';
export * from './orchestrator/policies.js';
export * from './orchestrator/webhooks.js';
export * from './orchestrator/parallel.js';
export * from './orchestrator/pool.js';
