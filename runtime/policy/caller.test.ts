import { describe, expect, it } from 'vitest';
import { MCP_TOOL_REQUEST_TYPE, policyClient, requestTypeOf } from './caller.js';

describe('policyClient', () => {
  it('names the API client, the organization and the tenant of an API key', () => {
    expect(policyClient({ clientId: 'cli_1', organizationId: 'acme', tenantId: 'eu' })).toEqual({
      id: 'cli_1',
      organization_id: 'acme',
      tenant_id: 'eu',
    });
  });
  it('names the organization as the client of a credential without one, and no tenant when organization-wide', () => {
    expect(policyClient({ organizationId: 'acme' })).toEqual({ id: 'acme', organization_id: 'acme' });
  });
});

describe('requestTypeOf', () => {
  it.each([
    ['pre-check', undefined, 'chat'],
    ['llm', undefined, 'chat'],
    ['mcp', undefined, 'mcp-query'],
    ['mcp', MCP_TOOL_REQUEST_TYPE, 'mcp-tool'],
    ['plan', undefined, 'multi-agent-plan'],
    ['parallel', undefined, 'parallel'],
    ['llm', 'sql', 'sql'],
    ['pre-check', 42, 'chat'],
    ['pre-check', '', 'chat'],
  ] as const)('%s asked %j → %s', (surface, asked, want) => {
    expect(requestTypeOf(surface, asked)).toBe(want);
  });
});
