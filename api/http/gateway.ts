/**
 * The gateway's HTTP contract: the zod schemas of its request and answer bodies, one module per resource area
 * under ./gateway/. The route table (./gateway/routes.ts) and the gateway's routes import them from here.
 */
export * from './gateway/health.js';
export * from './gateway/policy.js';
export * from './gateway/clients.js';
export * from './gateway/llm.js';
export * from './gateway/openai.js';
export * from './gateway/anthropic.js';
export * from './gateway/connectors.js';
export * from './gateway/budgets.js';
export * from './gateway/approvals.js';
export * from './gateway/audit-read.js';
export * from './gateway/governance.js';
