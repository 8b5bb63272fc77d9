export {
  AgentPool,
  type AgentPoolOptions,
  type AcquireOptions,
  type DispatchOptions,
  type Dispatched,
  type Lease,
} from './pool.js';
export type { MemberHealth, PoolMemberView, PoolStatus, PoolStatusReporter } from './status.js';
export {
  isProbed,
  type MemberChange,
  type MemberInit,
  type MemberKind,
  type MemberSource,
  type ProbedAgent,
} from './member-source.js';
export { StandaloneSource, type AgentFactory, type StandaloneSourceOptions } from './standalone-source.js';
export { StaticSource, parseAgentEndpoints, type StaticSourceOptions } from './static-source.js';
export { RemoteAgent, type RemoteAgentOptions } from './remote-agent.js';
export {
  AgentCommunicationError,
  NoHealthyAgentsError,
  PoolClosedError,
  PoolConfigError,
  type CommunicationFailure,
} from './errors.js';
export { matchesSelector, type LabelSelector } from './selector.js';
export {
  EndpointSliceSource,
  SERVICE_NAME_LABEL,
  agentServiceName,
  type EndpointSliceSourceOptions,
  type SelectedAgentConfig,
} from './endpointslice-source.js';
