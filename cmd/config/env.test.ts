import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../platform/config.js';
import { orchestratorConfigSchema, standaloneConfigSchema } from './env.js';
import { gatewaySettings, webhookSettings } from './settings.js';

describe('parseConfig', () => {
  it('applies the embedded defaults with an empty environment', () => {
    const c = parseConfig(standaloneConfigSchema, {});
    expect(c).toMatchObject({
      STEWARD_GATEWAY_PORT: 8080,
      STEWARD_ORCHESTRATOR_PORT: 8081,
      STEWARD_HOST: '127.0.0.1',
      STEWARD_DATA_DIR: '.data',
      STEWARD_BODY_LIMIT_BYTES: 1048576,
      STEWARD_SHUTDOWN_TIMEOUT_MS: 10000,
      STEWARD_MANIFESTS: ['config/samples'],
      STEWARD_BUILTIN_POLICY_PACK: 'enabled',
    });
    expect(c.LOG_FORMAT).toBeUndefined();
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('freezes the result', () => {
    expect(Object.isFrozen(parseConfig(standaloneConfigSchema, {}))).toBe(true);
  });

  it('reads the orchestrator port from PORT as the reference says', () => {
    expect(parseConfig(orchestratorConfigSchema, { PORT: '9090' }).PORT).toBe(9090);
  });

  it('treats an empty variable as unset', () => {
    expect(parseConfig(standaloneConfigSchema, { DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it('lets both ports be 0 (each listener picks a free port)', () => {
    expect(
      parseConfig(standaloneConfigSchema, { STEWARD_GATEWAY_PORT: '0', STEWARD_ORCHESTRATOR_PORT: '0' })
        .STEWARD_ORCHESTRATOR_PORT,
    ).toBe(0);
  });

  it('splits manifest folders on commas', () => {
    expect(parseConfig(standaloneConfigSchema, { STEWARD_MANIFESTS: 'a, b,,c' }).STEWARD_MANIFESTS).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it.each([
    { name: 'a port out of range', env: { STEWARD_GATEWAY_PORT: '70000' }, variable: 'STEWARD_GATEWAY_PORT' },
    { name: 'a non-URL database', env: { DATABASE_URL: 'not a url' }, variable: 'DATABASE_URL' },
    { name: 'an unknown log level', env: { LOG_LEVEL: 'loud' }, variable: 'LOG_LEVEL' },
    { name: 'a tiny body limit', env: { STEWARD_BODY_LIMIT_BYTES: '10' }, variable: 'STEWARD_BODY_LIMIT_BYTES' },
    { name: 'an unknown log format', env: { LOG_FORMAT: 'xml' }, variable: 'LOG_FORMAT' },
    {
      name: 'a pack setting that is neither enabled nor disabled',
      env: { STEWARD_BUILTIN_POLICY_PACK: 'off' },
      variable: 'STEWARD_BUILTIN_POLICY_PACK',
    },
    {
      name: 'the same port for the gateway and the orchestrator',
      env: { STEWARD_GATEWAY_PORT: '9000', STEWARD_ORCHESTRATOR_PORT: '9000' },
      variable: 'STEWARD_ORCHESTRATOR_PORT',
    },
  ])('rejects $name naming the variable', ({ env, variable }) => {
    try {
      parseConfig(standaloneConfigSchema, env);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues.map((i) => i.variable)).toContain(variable);
    }
  });
});

describe('webhookSettings', () => {
  it('carries the delivery limits, with their defaults, to the worker', () => {
    expect(webhookSettings(parseConfig(orchestratorConfigSchema, {}))).toMatchObject({
      concurrency: 8,
      perOrganizationConcurrency: 4,
      perTargetConcurrency: 2,
      breakerFailureThreshold: 5,
      breakerCooldownMs: 60_000,
    });
    const env = {
      STEWARD_WEBHOOK_CONCURRENCY: '16',
      STEWARD_WEBHOOK_PER_ORGANIZATION_CONCURRENCY: '3',
      STEWARD_WEBHOOK_PER_TARGET_CONCURRENCY: '1',
      STEWARD_WEBHOOK_BREAKER_FAILURE_THRESHOLD: '2',
      STEWARD_WEBHOOK_BREAKER_COOLDOWN_MS: '5000',
    };
    expect(webhookSettings(parseConfig(standaloneConfigSchema, env))).toMatchObject({
      concurrency: 16,
      perOrganizationConcurrency: 3,
      perTargetConcurrency: 1,
      breakerFailureThreshold: 2,
      breakerCooldownMs: 5000,
    });
  });

  it.each([
    'STEWARD_WEBHOOK_PER_ORGANIZATION_CONCURRENCY',
    'STEWARD_WEBHOOK_PER_TARGET_CONCURRENCY',
    'STEWARD_WEBHOOK_BREAKER_FAILURE_THRESHOLD',
  ])('refuses %s=0: a limit of zero would stop every delivery', (variable) => {
    expect(() => parseConfig(orchestratorConfigSchema, { [variable]: '0' })).toThrow(ConfigError);
  });
});

describe('OAuth on /mcp settings', () => {
  const issuer = { STEWARD_MCP_OAUTH_ISSUER: 'https://idp.example.com' };
  it('are off without an issuer, and need the resource with one', () => {
    expect(gatewaySettings({}).mcpOAuth).toBeUndefined();
    expect(() => gatewaySettings(issuer)).toThrow(/STEWARD_MCP_RESOURCE: required with STEWARD_MCP_OAUTH_ISSUER/);
  });

  it('read the scope map as JSON, and refuse one that is not a map of tool lists', () => {
    const ok = gatewaySettings({
      ...issuer,
      STEWARD_MCP_RESOURCE: 'https://steward.example.com/mcp',
      STEWARD_MCP_OAUTH_SCOPES: '{"orders:read": ["pg__query"]}',
    }).mcpOAuth;
    expect(ok).toMatchObject({
      issuer: 'https://idp.example.com',
      resource: 'https://steward.example.com/mcp',
      organizationClaim: 'steward_organization',
      scopes: { 'orders:read': ['pg__query'] },
    });
    for (const bad of ['[]', '{"a": "pg__query"}', 'not json'])
      expect(() =>
        gatewaySettings({ ...issuer, STEWARD_MCP_RESOURCE: 'https://s.example.com/mcp', STEWARD_MCP_OAUTH_SCOPES: bad }),
      ).toThrow(/STEWARD_MCP_OAUTH_SCOPES/);
  });
});
