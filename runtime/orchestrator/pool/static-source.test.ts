import { describe, expect, it } from 'vitest';
import { orchestratorSettings } from '../../../cmd/config/settings.js';
import { ConfigError } from '../../../platform/config.js';
import { PoolConfigError } from './errors.js';
import { StaticSource, parseAgentEndpoints } from './static-source.js';

describe('STEWARD_AGENT_ENDPOINTS', () => {
  it('keeps the origins of http and https endpoints, in order', () => {
    expect(parseAgentEndpoints(['http://agent-0:9000', 'https://agent-1.agents.svc:9443/', 'http://10.0.0.7'])).toEqual(
      ['http://agent-0:9000', 'https://agent-1.agents.svc:9443', 'http://10.0.0.7'],
    );
  });

  it.each([
    { name: 'a word that is not a URL', entry: 'agent-0:9000', says: 'must use http or https' },
    { name: 'a host with no scheme', entry: '10.0.0.7:9000', says: 'not a URL' },
    { name: 'another scheme', entry: 'ftp://agent-0', says: 'must use http or https' },
    { name: 'a path', entry: 'http://agent-0:9000/v1/work', says: 'origin only' },
    { name: 'credentials', entry: 'http://user:pw@agent-0', says: 'credentials' },
  ])('refuses $name with a PoolConfigError naming the setting', ({ entry, says }) => {
    const err = (() => {
      try {
        parseAgentEndpoints([entry]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PoolConfigError);
    expect(err).toMatchObject({ setting: 'STEWARD_AGENT_ENDPOINTS' });
    expect((err as Error).message).toContain(says);
  });

  it('refuses a duplicate and an empty list', () => {
    expect(() => parseAgentEndpoints(['http://a:1', 'http://a:1/'])).toThrow('listed twice');
    expect(() => parseAgentEndpoints([])).toThrow('lists no endpoint');
  });

  it('is parsed by the orchestrator configuration, a bad entry being a ConfigError', () => {
    const config = orchestratorSettings({ STEWARD_AGENT_ENDPOINTS: 'http://a:9000, https://b:9443' });
    expect(config.agents.endpoints).toEqual(['http://a:9000', 'https://b:9443']);
    expect(config.agents.probeIntervalMs).toBe(5000);
    expect(orchestratorSettings({}).agents.endpoints).toBeUndefined();
    expect(() => orchestratorSettings({ STEWARD_AGENT_ENDPOINTS: 'http://a:9000,a:9000/x' })).toThrow(ConfigError);
  });
});

describe('StaticSource', () => {
  it('offers one remote member per endpoint and desires that many', async () => {
    const source = new StaticSource(['http://a:9000', 'https://b:9443']);
    await source.ready();
    expect(source.members().map((m) => [m.key, m.kind, m.agent.id])).toEqual([
      ['http://a:9000', 'remote', 'a:9000'],
      ['https://b:9443', 'remote', 'b:9443'],
    ]);
    expect(source.desired()).toBe(2);
    await Promise.all(source.members().map((m) => m.agent.close()));
  });
});
