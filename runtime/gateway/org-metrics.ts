import { RequestMetrics, type RequestMetricsOptions } from '../metrics/index.js';

/**
 * Request metrics per organization: `GET /metrics` (the reference's JSON) shows the caller's organization
 * only. Organizations come from verified credentials (Licenses and their clients), so the map stays small.
 * NB: requests refused before an identity is known (401, 404) belong to no organization and are not counted.
 */
export class OrganizationMetrics {
  private readonly byOrganization = new Map<string, RequestMetrics>();
  private readonly options: RequestMetricsOptions;

  constructor(options: RequestMetricsOptions = {}) {
    // Every organization's uptime counts from the process start, not from its first request.
    this.options = { ...options, startedAtMs: options.startedAtMs ?? (options.now ?? Date.now)() };
  }

  /** The organization's metrics, created on its first request. */
  of(organizationId: string): RequestMetrics {
    let m = this.byOrganization.get(organizationId);
    if (!m) {
      m = new RequestMetrics(this.options);
      this.byOrganization.set(organizationId, m);
    }
    return m;
  }
}
