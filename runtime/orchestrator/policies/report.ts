/**
 * `GET /api/v1/policies/{id}/report`: a dynamic policy's counts over the last hour and the last 24 hours, counted in
 * the database from every gateway replica's records (runtime/policy/reports, docs/policy-reports.md), limited to the
 * caller's organization, and to its tenant when the credential is bound or narrowed to one.
 */
import { policyMode, type PolicyResource } from '../../../api/index.js';
import type { PolicyReport } from '../../../api/http/orchestrator.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import type { Identity } from '../../auth/identity.js';
import { reportUnavailable, type PolicyReports } from '../../policy/reports/index.js';
import { policyIdOfDocument } from './document.js';

export async function policyReportOf(
  reports: PolicyReports,
  doc: PolicyResource,
  identity: Identity,
  now: Date,
): Promise<PolicyReport> {
  const shadowOf = doc.spec.shadowOf;
  try {
    const windows = await reports.report({
      policy: doc.metadata.name,
      shadowOf,
      organizationId: identity.organizationId,
      tenantId: identity.tenantId,
      now,
    });
    return {
      policy: policyIdOfDocument(doc),
      resource_name: doc.metadata.name,
      mode: policyMode(doc.spec.enforcementAction),
      ...(shadowOf ? { shadow_of: shadowOf } : {}),
      generated_at: isoTimestamp(now),
      windows,
    };
  } catch (err) {
    throw reportUnavailable('plan', err);
  }
}
