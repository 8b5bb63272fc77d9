/**
 * The governed path of every call that reaches a model (pipeline.ts), and what it shares with the connector path:
 * the output scan and the policy call. Imported by the gateway and the orchestrator alike.
 */
export { BackgroundWrites } from './background-writes.js';
export { AuditFailedError, PolicyBlockedError } from './errors.js';
export { openOutputScan, type OutputScan, type OutputStep } from './output-scan.js';
export {
  auditText,
  checkInput,
  collect,
  openGoverned,
  recordOutcome,
  type InputCheck,
  type Outcome,
} from './pipeline.js';
export { evaluatePolicies } from './policy-call.js';
export { policiesEvaluatedOf, policyResultsOf, rowDecision } from './audit-record.js';
export { llmUpstream } from './upstream.js';
export type {
  GovernedAnswer,
  GovernedDeps,
  GovernedEvent,
  GovernedRequest,
  GovernedRun,
  GovernedVia,
  InputSurface,
  Upstream,
  UpstreamAnswer,
} from './types.js';
