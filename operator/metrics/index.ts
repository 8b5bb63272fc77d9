/** The operator's Prometheus metrics (`GET /metrics` on the probe port); docs/cluster-mode.md lists them. */
export { KubeRequestMetrics } from './kube-requests.js';
export { OperatorMetrics, type OperatorMetricsOptions } from './metrics.js';
