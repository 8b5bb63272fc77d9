import { describe, expect, it } from 'vitest';
import { routeAgentLlm, routeWarning } from './agent-route.js';
import { createLlmRouter } from './router.js';

const openaiOnly = createLlmRouter([{ type: 'openai', model: 'gpt-default', apiKey: 'sk-x' }]);
const both = createLlmRouter([
  { type: 'openai', model: 'gpt-default', apiKey: 'sk-x' },
  { type: 'anthropic', name: 'claude', model: 'claude-default', apiKey: 'sk-y' },
]);
const none = createLlmRouter([]);

describe('routeAgentLlm', () => {
  it("takes the AgentConfig's provider and model when it is configured (by type or name)", () => {
    expect(routeAgentLlm({ provider: 'anthropic', model: 'claude-x' }, both)).toEqual({
      provider: 'claude',
      model: 'claude-x',
      fallback: false,
    });
    expect(routeAgentLlm({ provider: 'openai', model: 'gpt-x' }, openaiOnly)).toEqual({
      provider: 'openai',
      model: 'gpt-x',
      fallback: false,
    });
  });

  it('gives an agent without spec.llm the default provider, without calling it a fallback', () => {
    expect(routeAgentLlm(undefined, both)).toEqual({ provider: 'openai', fallback: false });
  });

  it("falls back to the default provider, without the other provider's model, and names what was asked", () => {
    expect(routeAgentLlm({ provider: 'anthropic', model: 'claude-x' }, openaiOnly)).toEqual({
      provider: 'openai',
      fallback: true,
      requested: 'anthropic',
    });
  });

  it('refuses the fallback when spec.llm.fallback is false, naming the setting', () => {
    const r = routeAgentLlm({ provider: 'ollama', model: 'llama', fallback: false }, openaiOnly);
    expect(r).toEqual({ missing: expect.stringContaining('OLLAMA_HOST') });
    expect('missing' in r && r.missing).toContain('fallback is false');
  });

  it('has nothing to fall back to when no provider is configured', () => {
    expect(routeAgentLlm({ provider: 'anthropic', model: 'c' }, none)).toEqual({
      missing: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
    expect(routeAgentLlm(undefined, none)).toEqual({ missing: expect.stringContaining('OPENAI_API_KEY') });
  });

  it('warns of a fallback and of a missing provider, and says nothing of an agent on its own provider', () => {
    expect(routeWarning('hotel-search', routeAgentLlm({ provider: 'anthropic', model: 'c' }, openaiOnly))).toMatch(
      /hotel-search names the LLM provider anthropic.*default provider openai/,
    );
    expect(routeWarning('x', routeAgentLlm(undefined, none))).toContain('PROVIDER_NOT_CONFIGURED');
    expect(routeWarning('x', routeAgentLlm({ provider: 'openai', model: 'g' }, openaiOnly))).toBeUndefined();
  });
});
