/**
 * The official MCP client against a test gateway's `/mcp` over a real socket: connected with the request headers
 * a test names (a license key, an API key, an access token), and closed together after the suite.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

export class McpClients {
  private readonly open: Client[] = [];

  /** `base`: the listening gateway's URL, read when a client connects. */
  constructor(private readonly base: () => string) {}

  async connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'steward-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${this.base()}/mcp`), { requestInit: { headers } }),
    );
    this.open.push(client);
    return client;
  }

  async close(): Promise<void> {
    await Promise.all(this.open.map((c) => c.close()));
  }
}

/** The text blocks of a tool result, joined. */
export const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** The JSON-RPC error a refused call rejects with; fails the test when the call was answered. */
export async function refusal(call: Promise<unknown>): Promise<McpError> {
  const err = await call.then(
    (r) => {
      throw new Error(`the call was not refused: ${JSON.stringify(r)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}
