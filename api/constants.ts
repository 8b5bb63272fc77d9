/** API group of every Steward custom resource. */
export const GROUP = 'steward.dev';
/** The one served (and storage) version. */
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
/** apiVersion used by the reference product's AgentConfig files; accepted with a warning. */
export const LEGACY_AXONFLOW_API_VERSION = 'axonflow.io/v1';

/** Finalizer the operator puts on resources whose children it must clean up. */
export const FINALIZER = `${GROUP}/finalizer`;

/** On an `mcp` Connector: the digest of the tool list to approve (docs/connectors.md, Pinned tool definitions). */
export const APPROVE_TOOLS_ANNOTATION = `${GROUP}/approve-tools`;

/** Label keys set on every object the operator creates. */
export const LABELS = {
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  managedBy: 'app.kubernetes.io/managed-by',
  partOf: 'app.kubernetes.io/part-of',
  agentConfig: `${GROUP}/agent-config`,
  orchestrator: `${GROUP}/orchestrator`,
} as const;

export const MANAGED_BY = 'steward-operator';

/** Default ports of the runtimes. */
export const DEFAULT_GATEWAY_PORT = 8080;
export const DEFAULT_ORCHESTRATOR_PORT = 8081;
export const DEFAULT_AGENT_PORT = 8090;

/** Default AgentConfig timeout from the service reference. */
export const DEFAULT_AGENT_TIMEOUT = '60s';
