export { ConnectorStatusPublisher, type ConnectorStatusPublisherOptions } from './connector-status.js';
export { LeaseRole, type LeaseRoleOptions } from './lease-role.js';
export { PolicyStatusReporter, type PolicyLoadStates, type PolicyStatusReporterOptions } from './policy-status.js';
export { StatusThrottle } from './throttle.js';
