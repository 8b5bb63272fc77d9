export {
  PolicyReports,
  PolicyReportTimeoutError,
  type PolicyReportOptions,
  type PolicySummary,
  type ReportRequest,
} from './queries.js';
export { reportUnavailable } from './unavailable.js';
