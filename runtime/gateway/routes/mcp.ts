import type { FastifyPluginAsync } from 'fastify';
import { mcpQueryRequest, mcpToolRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import { ApiError, echo } from '../../http/errors.js';
import type { ConnectorRouteOptions } from '../deps.js';
import { parseBody } from '../validation.js';
import { warnCaller } from '../../http/warning-header.js';
import { governedConnectorCall } from '../connectors/call.js';
import { callOptions, checkVisible, visibleConnectors } from '../connectors/visible.js';
import { listedTools } from '../connectors/mcp-tools.js';
import { mcpServerRoutes } from '../connectors/mcp-server.js';

/** Any credential (or community mode) of a tier with the `mcp` feature. */
const MCP_AUTH = { auth: { require: 'any', feature: 'mcp' } } as const;

/**
 * The connector endpoints of the reference (`/mcp/*`, `POST /api/v1/connectors/refresh`) and Steward's own MCP
 * server at `/mcp`. Queries and tool calls go through `governedConnectorCall`, the one governed path; a caller
 * sees only the connectors that serve its organization.
 */
export const mcpRoutes: FastifyPluginAsync<ConnectorRouteOptions> = async (app, deps) => {
  app.get('/mcp/connectors', { config: MCP_AUTH }, async (req) => {
    const identity = identityOf(req);
    // NB: each connector's tools as the MCP server lists them: without those a policy denies at `list` time.
    const tools = new Map<string, string[]>();
    for (const t of await listedTools(deps, identity)) {
      const names = tools.get(t.connector) ?? [];
      names.push(t.tool);
      tools.set(t.connector, names);
    }
    const connectors = visibleConnectors(deps, identity).map((c) => ({ ...c, tools: tools.get(c.name) ?? [] }));
    return { connectors, count: connectors.length };
  });

  app.get<{ Params: { name: string } }>('/mcp/connectors/:name/health', { config: MCP_AUTH }, async (req) => {
    const name = req.params.name;
    if (!visibleConnectors(deps, identityOf(req)).some((c) => c.name === name)) {
      throw new ApiError('gateway', 'CONNECTOR_NOT_FOUND', `no connector named ${echo(name)}`);
    }
    return deps.connectors.checkHealth(name);
  });

  app.get('/mcp/health', { config: MCP_AUTH }, async (req) => checkVisible(deps, identityOf(req)));

  app.post('/mcp/resources/query', { bodyLimit: deps.policyBodyLimitBytes, config: MCP_AUTH }, async (req, reply) => {
    const body = parseBody(mcpQueryRequest, req.body);
    const statement = body.query ?? body.statement;
    if (statement === undefined)
      throw new ApiError('gateway', 'INVALID_REQUEST', 'missing required field(s): query (or statement)', {
        fields: [{ field: 'query', message: 'required' }],
      });
    const { result, metadata } = await governedConnectorCall(deps, identityOf(req), {
      kind: 'query',
      via: 'rest',
      connector: body.connector,
      statement,
      params: body.params,
      options: callOptions(body.options),
      userToken: body.user_token,
      clientId: body.client_id,
      ...(body.approval_id !== undefined ? { approvalId: body.approval_id } : {}),
    });
    warnCaller(reply, metadata.warnings ?? []);
    if (!('rows' in result)) throw new ApiError('gateway', 'INTERNAL_ERROR', 'a query answered without rows');
    return {
      success: true,
      data: result.rows,
      row_count: result.row_count,
      execution_time_ms: result.execution_time_ms,
      ...(result.columns ? { columns: result.columns } : {}),
      ...(result.affected_rows !== undefined ? { affected_rows: result.affected_rows } : {}),
      metadata,
    };
  });

  app.post('/mcp/tools/execute', { bodyLimit: deps.policyBodyLimitBytes, config: MCP_AUTH }, async (req, reply) => {
    const body = parseBody(mcpToolRequest, req.body);
    const { result, metadata } = await governedConnectorCall(deps, identityOf(req), {
      kind: 'tool',
      via: 'rest',
      connector: body.connector,
      tool: body.tool,
      params: body.params ?? {},
      options: callOptions(body.options),
      userToken: body.user_token,
      clientId: body.client_id,
      ...(body.approval_id !== undefined ? { approvalId: body.approval_id } : {}),
    });
    warnCaller(reply, metadata.warnings ?? []);
    return {
      success: true,
      result: 'result' in result ? result.result : result.rows,
      execution_time_ms: result.execution_time_ms,
      metadata,
    };
  });

  // NB: reloads every connector of the installation, not one organization's: the organization key (admin) only.
  app.post('/api/v1/connectors/refresh', { config: { auth: { require: 'license-key', feature: 'mcp' } } }, async () => {
    const count = await deps.connectors.refresh();
    return {
      success: true,
      refreshed_count: count,
      message: `reloaded ${count} connector${count === 1 ? '' : 's'} from the source`,
    };
  });

  await app.register(mcpServerRoutes, deps);
};
