import type { FastifyPluginAsync } from 'fastify';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { identityOf } from '../../auth/plugin.js';
import type { Identity } from '../../auth/identity.js';
import type { OAuthGrant } from '../../auth/oauth.js';
import { asApiError } from '../../http/error-model.js';
import { ApiError } from '../../http/errors.js';
import type { ConnectorRouteOptions } from '../deps.js';
import { governedConnectorCall } from './call.js';
import { callOf, listedTools, servedTools } from './mcp-tools.js';

const MCP_AUTH = { auth: { require: 'any', feature: 'mcp', oauth: true } } as const;
const PUBLIC = { auth: { require: 'none' } } as const;
/** The MCP SDK's server half, loaded with the first `/mcp` request (a gateway no MCP client calls never loads it). */
type Sdk = Awaited<ReturnType<typeof importSdk>>;
const importSdk = async () => {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { ...server, ...transport, ...types };
};
let sdkLoading: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= importSdk());

/** The JSON-RPC error code of a call a policy refused (the implementation-defined server-error range). */
export const POLICY_DENIED = -32003;

/**
 * Steward as an MCP server at `/mcp` (Streamable HTTP, stateless: a server and a transport per request, JSON
 * answers rather than SSE). The request's own credentials authenticate it like any gateway route. `tools/list`
 * shows what the policies allow at `list` time; `tools/call` runs `governedConnectorCall`: a policy's refusal is a
 * JSON-RPC error (POLICY_DENIED, naming the policy), any other refusal (guard, tenancy) a tool result with
 * `isError: true`; neither is a transport failure.
 */
export const mcpServerRoutes: FastifyPluginAsync<ConnectorRouteOptions> = async (app, deps) => {
  app.post('/mcp', { bodyLimit: deps.policyBodyLimitBytes, config: MCP_AUTH }, async (req, reply) => {
    const sdk = await loadSdk();
    checkTransportRequest(sdk, req.headers.accept, req.body);
    const grant = req.oauthGrant;
    // NB: a token's scopes are checked before the transport: a missing one is an HTTP 403 with the step-up challenge.
    if (grant && deps.mcpOAuth) {
      for (const name of calledTools(req.body))
        if (!deps.mcpOAuth.allows(grant, name)) throw deps.mcpOAuth.insufficientScope(name);
    }
    const server = mcpServer(sdk, deps, identityOf(req), grant);
    const transport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // NB: the transport writes to the socket itself; headers fastify's hooks set (request id, rate limits) go too.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });

  const stateless = async () => {
    throw new ApiError(
      'gateway',
      'METHOD_NOT_ALLOWED',
      'the MCP endpoint is stateless: POST JSON-RPC messages; there is no server-sent stream or session',
      undefined,
      { headers: { allow: 'POST' } },
    );
  };
  app.get('/mcp', { config: MCP_AUTH }, stateless);
  app.delete('/mcp', { config: MCP_AUTH }, stateless);

  // RFC 9728: where MCP clients learn which authorization server issues tokens for this resource.
  const metadata = async () => {
    if (!deps.mcpOAuth)
      throw new ApiError(
        'gateway',
        'NOT_FOUND',
        'this gateway takes no OAuth tokens: STEWARD_MCP_OAUTH_ISSUER is not set',
      );
    return deps.mcpOAuth.metadata();
  };
  app.get('/.well-known/oauth-protected-resource', { config: PUBLIC }, metadata);
  app.get('/.well-known/oauth-protected-resource/*', { config: PUBLIC }, metadata);
};

/** The tools a JSON-RPC message (or batch) calls. */
function calledTools(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const names: string[] = [];
  for (const m of messages) {
    const msg = m as { method?: unknown; params?: { name?: unknown } };
    if (msg.method === 'tools/call' && typeof msg.params?.name === 'string') names.push(msg.params.name);
  }
  return names;
}

/**
 * What the transport would refuse in JSON-RPC's own error shape, refused first in the gateway's (clients parse the
 * body, and every gateway error has `error`, `code` and `request_id`): the Accept header of the Streamable HTTP
 * transport, and a body that is not a JSON-RPC message or batch.
 */
function checkTransportRequest(sdk: Sdk, accept: string | undefined, body: unknown): void {
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new ApiError(
      'gateway',
      'NOT_ACCEPTABLE',
      'the MCP endpoint needs Accept: application/json, text/event-stream',
    );
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((m) => sdk.JSONRPCMessageSchema.safeParse(m).success)) {
    throw new ApiError('gateway', 'INVALID_REQUEST', 'the body must be a JSON-RPC 2.0 message or a batch of them');
  }
}

function mcpServer(sdk: Sdk, deps: ConnectorRouteOptions, identity: Identity, grant: OAuthGrant | undefined): Server {
  const server = new sdk.Server({ name: 'steward', version: deps.version }, { capabilities: { tools: {} } });
  const reach = (name: string) => !grant || !deps.mcpOAuth || deps.mcpOAuth.allows(grant, name);
  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({
    tools: (await listedTools(deps, identity))
      .filter((t) => reach(t.name))
      .map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: { type: 'object', ...t.inputSchema } as { type: 'object' },
      })),
  }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = servedTools(deps, identity).find((t) => t.name === request.params.name);
    if (!tool) return failure('CONNECTOR_NOT_FOUND', `no tool named ${request.params.name.slice(0, 128)}`);
    const args = request.params.arguments ?? {};
    const meta = request.params._meta;
    const userToken = typeof meta?.user_token === 'string' ? meta.user_token : undefined;
    // NB: a call parked for approval is retried with the approval's id in `_meta` (docs/approvals.md).
    const approvalId = typeof meta?.approval_id === 'string' ? meta.approval_id.slice(0, 64) : undefined;
    try {
      const out = await governedConnectorCall(deps, identity, callOf(tool, args, { userToken, approvalId }));
      const value =
        out.kind === 'query'
          ? { rows: out.result.rows, row_count: out.result.row_count, execution_time_ms: out.result.execution_time_ms }
          : out.result.result;
      // A remote MCP tool's own content passes through; anything else is one JSON text block.
      const remote = out.kind === 'tool' && isToolContent(value) ? value : undefined;
      return {
        content: remote ? remote.content : [{ type: 'text', text: JSON.stringify(value) }],
        ...(remote?.isError ? { isError: true } : {}),
        _meta: { steward: out.metadata },
      };
    } catch (thrown) {
      const err = asApiError(thrown);
      // NB: a policy's refusal is the protocol's error, naming the policy (docs/connectors.md); other refusals
      // (a guard, tenancy, the connector) are tool results with isError, which the model can read and retry.
      if (err instanceof ApiError && err.code === 'POLICY_VIOLATION')
        throw new sdk.McpError(POLICY_DENIED, `${err.code}: ${err.message}`, { code: err.code, ...err.details });
      if (err instanceof ApiError) return failure(err.code, err.message, err.details);
      throw thrown;
    }
  });
  return server;
}

/** A refusal as MCP clients expect it: a tool result with `isError`, the code first in the text. */
function failure(code: string, message: string, details?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    isError: true,
    _meta: { steward: { code, ...(details ? { details } : {}) } },
  };
}

function isToolContent(v: unknown): v is { content: CallToolResult['content']; isError?: boolean } {
  return typeof v === 'object' && v !== null && Array.isArray((v as { content?: unknown }).content);
}
