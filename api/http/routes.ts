/**
 * The route tables: every documented endpoint of each runtime, its schemas and its credential rule. The OpenAPI
 * documents (docs/openapi/, `npm run gen`) and the route-table tests read them from here; each runtime's table
 * lives beside its schemas (./gateway/routes.ts, ./orchestrator/routes.ts).
 */
export type { RouteDoc } from './route-doc.js';
export { GATEWAY_ROUTES } from './gateway/routes.js';
export { ORCHESTRATOR_ROUTES } from './orchestrator/routes.js';
