import type { Identity } from '../../auth/identity.js';
import type { ToolDescription } from '../../connectors/index.js';
import { evaluatePolicies } from '../../governed/policy-call.js';
import { MCP_TOOL_REQUEST_TYPE, policyClient } from '../../policy/caller.js';
import type { PolicyScope } from '../../policy/types.js';
import type { ConnectorRouteOptions } from '../deps.js';
import { servesOrganization } from './tenancy.js';
import { mcpIdentity, type ConnectorCall } from './call.js';

/** One tool of Steward's MCP server: a connector's tool or operation, named `<connector>__<tool>`. */
export interface ServedTool {
  name: string;
  connector: string;
  /** The connector's tool, or `query` for the query operation. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The query operation of a kind without a `query` tool (http, redis, mcp): runs as a query. */
  asQuery: boolean;
  /** The connector's kind (`input.mcp.type`). */
  type: string;
  /** Held by its pin (an `mcp` tool whose definition is not approved): never listed; a call is refused with the reason. */
  held?: boolean;
}

/** The input of the `query` tool of kinds whose query operation is not a tool (http path, redis command, MCP resource URI). */
const QUERY_TOOL_SCHEMA = {
  type: 'object',
  properties: {
    statement: { type: 'string', description: 'the query: an HTTP path, a Redis command, an MCP resource URI' },
    params: { description: 'positional ($1…) or named parameters' },
  },
  required: ['statement'],
};

/** MCP tool names allow `[A-Za-z0-9_.-]`; `__` separates the connector from its tool. */
export const servedName = (connector: string, tool: string) =>
  `${connector.replace(/[^A-Za-z0-9_]/g, '_')}__${tool.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, 128);

/**
 * The tools the caller's organization may call: each visible connector's tools that its allowedOperations permit,
 * plus a `query` tool where `query` is allowed and the kind has no tool of that name.
 */
export function servedTools(deps: ConnectorRouteOptions, identity: Identity): ServedTool[] {
  const out: ServedTool[] = [];
  const seen = new Set<string>();
  const add = (t: ServedTool) => {
    if (seen.has(t.name)) return; // NB: `a-b` and `a.b` map to one name; the first (sorted) connector keeps it
    seen.add(t.name);
    out.push(t);
  };
  for (const info of deps.connectors.list()) {
    const doc = deps.connectors.resource(info.name);
    if (!doc || !servesOrganization(doc, identity, deps.source)) continue;
    const tools: ToolDescription[] = deps.connectors.tools(info.name).map((t) => t.tool);
    for (const t of tools) {
      add({
        name: servedName(info.name, t.name),
        connector: info.name,
        tool: t.name,
        description: `${t.description} [connector ${info.name}]`,
        inputSchema: t.inputSchema,
        asQuery: false,
        type: info.type,
        ...(t.held ? { held: true } : {}),
      });
    }
    if (info.allowed_operations.includes('query') && !tools.some((t) => t.name === 'query')) {
      add({
        name: servedName(info.name, 'query'),
        connector: info.name,
        tool: 'query',
        description: `Query connector ${info.name} (${info.type}) [connector ${info.name}]`,
        inputSchema: QUERY_TOOL_SCHEMA,
        asQuery: true,
        type: info.type,
      });
    }
  }
  return out;
}

/**
 * The served tools the caller may see: each one whose definition is approved (not held by its pin) and that no
 * policy denies at `list` time (`input.mcp.phase == "list"`, docs/connectors.md). A failed evaluation hides the tool (fail closed). Listing is not audited; calls are decided
 * again, on their own phase, when they are made.
 */
export async function listedTools(
  deps: ConnectorRouteOptions,
  identity: Identity,
  tools: readonly ServedTool[] = servedTools(deps, identity),
): Promise<ServedTool[]> {
  const scope: PolicyScope = { surface: 'mcp', organizationId: identity.organizationId, tenantId: identity.tenantId };
  // NB: a tool whose definition is not approved is not shown at all (docs/connectors.md, Pinned tool definitions).
  tools = tools.filter((t) => !t.held);
  if (tools.length === 0 || !deps.policies.hasPolicies(scope)) return [...tools];
  const who = mcpIdentity(identity, undefined, undefined);
  const shown: ServedTool[] = [];
  for (const t of tools) {
    const evaluation = await evaluatePolicies(
      deps.policies,
      {
        query: `${t.connector}.${t.tool}`,
        surface: 'mcp',
        client_id: identity.clientId ?? identity.credential,
        client: policyClient(identity),
        request_type: MCP_TOOL_REQUEST_TYPE,
        user: { id: '' },
        context: {},
        mcp: { connector: t.connector, type: t.type, operation: t.tool, tool: t.tool, phase: 'list', identity: who },
      },
      scope,
    );
    if (evaluation.approved) shown.push(t);
  }
  return shown;
}

/** The governed call a `tools/call` of a served tool makes (the same path as the REST endpoints). */
export function callOf(
  tool: ServedTool,
  args: Record<string, unknown>,
  meta: { userToken?: string; approvalId?: string },
): ConnectorCall {
  const common = {
    via: 'mcp-server' as const,
    connector: tool.connector,
    userToken: meta.userToken,
    ...(meta.approvalId !== undefined ? { approvalId: meta.approvalId } : {}),
  };
  if (tool.asQuery) {
    return {
      kind: 'query',
      ...common,
      statement: typeof args.statement === 'string' ? args.statement : String(args.query ?? ''),
      params: args.params,
    };
  }
  return { kind: 'tool', ...common, tool: tool.tool, params: args };
}
