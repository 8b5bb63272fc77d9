import { z } from 'zod';

export const conditionSchema = z
  .object({
    type: z.string().min(1).describe('condition type: Ready, Degraded, Compiled or Expired'),
    status: z.enum(['True', 'False', 'Unknown']).describe('whether the condition holds'),
    reason: z
      .string()
      .min(1)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe('machine-readable CamelCase reason for the status, e.g. CompileFailed or LicenseInvalid'),
    message: z
      .string()
      .max(32768)
      .default('')
      .describe('human-readable details, e.g. a Rego compile error with file:line:column'),
    lastTransitionTime: z.string().describe('when status last changed (RFC 3339)'),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('metadata.generation the condition was computed from'),
  })
  .strict()
  .describe("one observation of the resource's state");
export type Condition = z.infer<typeof conditionSchema>;

/** Condition types used across kinds. */
export const ConditionType = {
  /** The resource is fully reconciled and serving. */
  Ready: 'Ready',
  /** Something works, but not everything asked for. */
  Degraded: 'Degraded',
  /** A Policy's Rego or wasm bundle compiled. */
  Compiled: 'Compiled',
  /** A PolicyException's `spec.expiresAt` has passed: it exempts nothing any more. */
  Expired: 'Expired',
  /** An `mcp` Connector's upstream lists tools that differ from the approved definitions (True: some are held). */
  ToolsChanged: 'ToolsChanged',
} as const;

/** Reasons, one constant each, so that callers never compare message text. */
export const Reason = {
  /** Everything the resource asked for is running. */
  Reconciled: 'Reconciled',
  /** The Rego source or wasm bundle compiled cleanly. */
  CompileSucceeded: 'CompileSucceeded',
  /** The Rego source did not parse or failed compile checks; the message has file:row:col. */
  CompileFailed: 'CompileFailed',
  /** The referenced License is missing, expired or invalid. */
  LicenseInvalid: 'LicenseInvalid',
  /** Total pods would exceed the License's maxNodes. */
  NodeLimitExceeded: 'NodeLimitExceeded',
  /** A referenced Secret or key is missing. */
  SecretMissing: 'SecretMissing',
  /** The ConfigMap (or its key) a Policy's `spec.wasm.configMapRef` names is missing. */
  ConfigMapMissing: 'ConfigMapMissing',
  /** Fewer pods are available than desired. */
  ReplicasUnavailable: 'ReplicasUnavailable',
  /** A connector health check failed. */
  HealthCheckFailed: 'HealthCheckFailed',
  /** The database Secret is missing or the runtimes cannot reach PostgreSQL. */
  DatabaseUnreachable: 'DatabaseUnreachable',
  /** The agent pool has fewer healthy agents than desired. */
  PoolUnhealthy: 'PoolUnhealthy',
  /** Applying the desired objects failed; the message has the API server's error. */
  ReconcileFailed: 'ReconcileFailed',
  /** The agent's Orchestrator has not created what its pods need yet (the `O-internal` Secret). */
  OrchestratorPending: 'OrchestratorPending',
  /** Some gateway pods have not loaded the Policy's current generation yet. */
  RolloutPending: 'RolloutPending',
  /** Every gateway pod evaluates the Policy's current generation. */
  Loaded: 'Loaded',
  /** The Connector's references resolve (Secret and key present). */
  ReferencesResolved: 'ReferencesResolved',
  /** The License key is well-formed, correctly signed and not expired. */
  LicenseValid: 'LicenseValid',
  /** No Orchestrator's agentPool selects the AgentConfig, so it has no image or ServiceAccount to run with. */
  NoOrchestrator: 'NoOrchestrator',
  /** A Deployment, Service or other object the operator made was created (Event reason). */
  Created: 'Created',
  /** An object the operator made was updated to the desired state (Event reason). */
  Updated: 'Updated',
  /** A PolicyException is valid and not expired: the runtimes exempt the calls it matches. */
  ExceptionActive: 'ExceptionActive',
  /** A PolicyException's `spec.expiresAt` has passed (its Ready and Expired conditions, and the Event). */
  Expired: 'Expired',
  /** A PolicyException's expiresAt lies ahead, or it is permanent without one. */
  NotExpired: 'NotExpired',
  /** The spec breaks a rule the CRD cannot express (e.g. expiresAt over 90 days after creation); the message names the field. */
  InvalidSpec: 'InvalidSpec',
  /** A Budget is valid: the gateways charge the calls it matches and hold them to its limit. */
  BudgetActive: 'BudgetActive',
  /** An `mcp` Connector's upstream lists other tool definitions than the approved ones (ToolsChanged=True). */
  ToolDefinitionChanged: 'ToolDefinitionChanged',
  /** An `mcp` Connector's upstream lists exactly the approved tool definitions (ToolsChanged=False). */
  ToolsApproved: 'ToolsApproved',
  /** A Budget's `spec.window.timeZone` is no IANA time zone the runtimes know: they skip the Budget. */
  UnknownTimeZone: 'UnknownTimeZone',
} as const;

export interface ConditionInput {
  type: string;
  status: Condition['status'];
  reason: string;
  message?: string;
}

/**
 * Returns a new conditions list with `input` set. `lastTransitionTime` is kept when the status did not
 * change, so a controller may call this on every pass without making status churn.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  observedGeneration: number | undefined,
  now: Date,
): Condition[] {
  const list = conditions ? [...conditions] : [];
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message ?? '',
    lastTransitionTime: previous && previous.status === input.status ? previous.lastTransitionTime : now.toISOString(),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when both lists say the same thing (ignoring order), so that status writes can be skipped. */
export function conditionsEqual(a: readonly Condition[] | undefined, b: readonly Condition[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  if (left.length !== right.length) return false;
  return left.every((c) => {
    const o = right.find((x) => x.type === c.type);
    return (
      o !== undefined &&
      o.status === c.status &&
      o.reason === c.reason &&
      o.message === c.message &&
      o.lastTransitionTime === c.lastTransitionTime &&
      o.observedGeneration === c.observedGeneration
    );
  });
}

/** `status.conditions` of every kind. */
export const conditionsField = z
  .array(conditionSchema)
  .optional()
  .describe("latest observations of the resource's state; Ready summarizes them");

/** `status.observedGeneration` of every kind. */
export const observedGenerationField = z
  .number()
  .int()
  .optional()
  .describe(
    'metadata.generation the status was computed from; older than metadata.generation while a change is being reconciled',
  );
