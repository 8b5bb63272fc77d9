/**
 * The caller's part of a policy input (docs/adr/0012-axonflow-shaped-policies.md): `input.client`, from the verified
 * identity and never from the body, and `input.request_type`. Every surface that builds an input takes both from
 * here, so that a policy of conditions on `client.*` or `request_type` reads the same on each.
 */
import type { PolicySurface } from '../../api/index.js';
import type { Identity } from '../auth/identity.js';
import type { PolicyClient } from './types.js';

/** `input.client` of a caller. */
export function policyClient(identity: Pick<Identity, 'organizationId' | 'tenantId' | 'clientId'>): PolicyClient {
  return {
    // NB: a license key or community mode names no client: the organization is the caller, as in a plan's client_id
    id: identity.clientId ?? identity.organizationId,
    organization_id: identity.organizationId,
    ...(identity.tenantId !== undefined ? { tenant_id: identity.tenantId } : {}),
  };
}

/**
 * `input.request_type` of a surface whose request names none. `/api/request` sends its body's `request_type`
 * (`chat` when absent), a pre-check the body's `request_type` when it has one; an MCP tool call is
 * MCP_TOOL_REQUEST_TYPE.
 */
export const SURFACE_REQUEST_TYPES = {
  'pre-check': 'chat',
  llm: 'chat',
  mcp: 'mcp-query',
  plan: 'multi-agent-plan',
  parallel: 'parallel',
} as const satisfies Record<Exclude<PolicySurface, 'llm_output'>, string>;

/** `input.request_type` of an MCP tool call (a statement is the surface's `mcp-query`). */
export const MCP_TOOL_REQUEST_TYPE = 'mcp-tool';

/** The request type the caller asked for when it is a string, else the surface's. */
export function requestTypeOf(surface: keyof typeof SURFACE_REQUEST_TYPES, asked?: unknown): string {
  return typeof asked === 'string' && asked !== '' ? asked : SURFACE_REQUEST_TYPES[surface];
}
