import { describe, expect, it } from 'vitest';
import { createLlmRouter } from '../llm/index.js';
import { chooseModel } from './compat.js';

const router = createLlmRouter([
  { type: 'openai', model: 'gpt-4o-mini', apiKey: 'sk' },
  { name: 'claude-eu', type: 'anthropic', model: 'claude-sonnet-4-6', apiKey: 'sk' },
]);

describe('chooseModel', () => {
  it.each([
    {
      name: 'provider/model names a configured provider by name',
      model: 'claude-eu/claude-haiku-4-5',
      want: { provider: 'claude-eu', model: 'claude-haiku-4-5' },
    },
    {
      name: 'provider/model names a configured provider by type',
      model: 'anthropic/claude-haiku-4-5',
      want: { provider: 'anthropic', model: 'claude-haiku-4-5' },
    },
    { name: "a provider's name alone takes its configured model", model: 'claude-eu', want: { provider: 'claude-eu' } },
    {
      name: "a provider's configured model picks that provider",
      model: 'claude-sonnet-4-6',
      want: { provider: 'claude-eu', model: 'claude-sonnet-4-6' },
    },
    { name: 'any other model goes to the default provider unchanged', model: 'gpt-4o', want: { model: 'gpt-4o' } },
    {
      name: 'a slash whose prefix is no provider is part of the model',
      model: 'meta-llama/Llama-3',
      want: { model: 'meta-llama/Llama-3' },
    },
    {
      name: 'an empty model after the slash takes the configured model',
      model: 'openai/',
      want: { provider: 'openai' },
    },
  ])('$name', ({ model, want }) => {
    expect(chooseModel(router, model)).toEqual(want);
  });

  it('passes the model on when no provider is configured', () => {
    expect(chooseModel(undefined, 'openai/gpt-4o')).toEqual({ model: 'openai/gpt-4o' });
  });
});
