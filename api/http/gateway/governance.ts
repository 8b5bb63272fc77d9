/**
 * What the gateway tells a person about their organization (`/api/v1/whoami`, `/api/v1/governance/*`): who the
 * credential is, the policies in force with their state and last day's counts, and the agent pool with its health,
 * load and latency. The console's pages read them (docs/console.md); so may anyone's tooling.
 */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { poolFigures, poolMember } from '../orchestrator/pool.js';

export const whoami = z.object({
  credential: z.enum(['community', 'license-key', 'api-key', 'basic', 'legacy-client-secret', 'oauth']),
  organization_id: z.string(),
  tenant_id: z.string().optional().describe('the narrowest tenant the credential reaches'),
  tenant_bound: z.boolean().describe('the credential itself is bound to that tenant'),
  client_id: z.string().optional(),
  tier: z.string(),
  roles: z.array(z.string()).describe('what the credential may do besides calling; a license key holds every role'),
  principal: z.string().describe('the caller as approvals compare callers: client:<id>, license:<org>, community'),
});

export const governedPolicy = z.object({
  name: z.string().describe("the Policy's metadata.name (a dynamic policy's id)"),
  namespace: z.string(),
  origin: z.enum(['builtin', 'resource', 'dynamic']).describe('the built-in pack, a Policy document, or the API'),
  type: z.string().describe('spec.type'),
  kind: z.enum(['rego', 'wasm', 'redact']),
  action: z.string().describe('spec.action'),
  mode: z.enum(['enforce', 'warn', 'audit']).describe('spec.enforcementAction (dryrun reads as audit)'),
  enabled: z.boolean(),
  surfaces: z.array(z.string()).describe('spec.scope.surfaces; empty: every surface'),
  state: z
    .enum(['compiled', 'failed', 'fallback', 'disabled', 'pending'])
    .describe(
      'in force as written; did not compile; its last good version is in force; spec.enabled false; not compiled by this replica yet',
    ),
  error: z.string().optional().describe('why it did not compile or load, with file:line:column for Rego'),
  evaluations_24h: z.number().int().describe("the organization's calls that evaluated it in the last 24 hours"),
  violations_24h: z
    .number()
    .int()
    .describe('calls it blocked, or would have (under warn or audit), in the last 24 hours'),
});

export const governedPolicyList = z.object({
  policies: z.array(governedPolicy),
  count: z.number().int(),
  generated_at: timestamp,
});

export const governedAgent = z.object({
  name: z.string(),
  namespace: z.string(),
  domain: z.string(),
  type: z.string(),
  replicas: z.number().int().describe('spec.replicas: the pool members it should have'),
  healthy: z.number().int(),
  in_flight: z.number().int().describe('items its members run now'),
  max_in_flight: z.number().int().describe('items its healthy members take at once'),
  queries_processed: z.number().int(),
  members: z.array(poolMember),
  latency: z
    .object({
      calls: z.number().int(),
      p50_ms: z.number().nullable(),
      p99_ms: z.number().nullable(),
    })
    .describe("the organization's calls to it in the last hour, from the audit rows (upstream time)"),
});

export const governedAgentList = z.object({
  agents: z.array(governedAgent),
  count: z.number().int(),
  pool: poolFigures.nullable().describe('the whole pool; null when the orchestrator could not be asked'),
  pool_error: z.string().optional().describe('why the pool is not shown'),
  generated_at: timestamp,
});
