export {
  PolicyReports,
  PolicyReportTimeoutError,
  type PolicyReportOptions,
  type PolicySummary,
  type ReportRequest,
} from './queries.js';
