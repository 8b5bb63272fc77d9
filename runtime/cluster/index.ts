export { ConnectorStatusPublisher, type ConnectorStatusPublisherOptions } from './connector-status.js';
export { LeaseRole, type LeaseRoleOptions } from './lease-role.js';
export { PolicyStatusReporter, type PolicyLoadStates, type PolicyStatusReporterOptions } from './policy-status.js';
export { StatusThrottle } from './throttle.js';
export {
  POLICY_REPORT_INTERVAL_MS,
  PolicyReportWriter,
  type PolicyReportWriterOptions,
} from './policy-report-status.js';
export { BUDGET_STATUS_INTERVAL_MS, BudgetStatusWriter, type BudgetStatusWriterOptions } from './budget-status.js';
