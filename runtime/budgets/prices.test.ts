import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICES, PriceTable, parseDefaultPrice, parseModelPrices, type ModelPrice } from './prices.js';

const custom: ModelPrice = { input: 7, output: 21 };

describe('BUILTIN_PRICES', () => {
  it.each([
    ['openai/gpt-4o', { input: 2.5, output: 10, cachedInput: 1.25 }],
    ['openai/gpt-4o-mini', { input: 0.15, output: 0.6, cachedInput: 0.075 }],
    ['openai/gpt-4.1', { input: 2, output: 8, cachedInput: 0.5 }],
    ['openai/gpt-4.1-mini', { input: 0.4, output: 1.6, cachedInput: 0.1 }],
    ['openai/gpt-4.1-nano', { input: 0.1, output: 0.4, cachedInput: 0.025 }],
    ['openai/o3', { input: 2, output: 8, cachedInput: 0.5 }],
    ['openai/o4-mini', { input: 1.1, output: 4.4, cachedInput: 0.275 }],
    ['openai/gpt-5', { input: 1.25, output: 10, cachedInput: 0.125 }],
    ['openai/gpt-5-mini', { input: 0.25, output: 2, cachedInput: 0.025 }],
    ['anthropic/claude-opus-4-1', { input: 15, output: 75, cachedInput: 1.5 }],
    ['anthropic/claude-sonnet-4-5', { input: 3, output: 15, cachedInput: 0.3 }],
    ['anthropic/claude-sonnet-4', { input: 3, output: 15, cachedInput: 0.3 }],
    ['anthropic/claude-haiku-4-5', { input: 1, output: 5, cachedInput: 0.1 }],
    ['anthropic/claude-3-5-haiku', { input: 0.8, output: 4, cachedInput: 0.08 }],
    ['bedrock/anthropic.claude-sonnet-4-5', { input: 3, output: 15, cachedInput: 0.3 }],
    ['aws-bedrock/global.anthropic.claude-haiku-4-5', { input: 1, output: 5, cachedInput: 0.1 }],
    ['ollama/*', { input: 0, output: 0 }],
    ['echo/*', { input: 0, output: 0 }],
  ])('lists %s', (key, expected) => {
    expect(BUILTIN_PRICES[key]).toEqual(expected);
  });

  it('cannot be changed', () => {
    expect(Object.isFrozen(BUILTIN_PRICES)).toBe(true);
    expect(Object.isFrozen(BUILTIN_PRICES['openai/gpt-4o'])).toBe(true);
  });
});

describe('PriceTable.priceOf', () => {
  const builtin = new PriceTable();

  it.each([
    { name: 'finds an exact built-in', provider: 'openai', model: 'gpt-4o', key: 'openai/gpt-4o' },
    {
      name: 'finds a dated OpenAI snapshot by its family, the longest prefix',
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      key: 'openai/gpt-4o-mini',
    },
    {
      name: 'prefers a snapshot listed on its own to its family',
      provider: 'openai',
      model: 'gpt-4o-2024-05-13',
      key: 'openai/gpt-4o-2024-05-13',
    },
    {
      name: 'finds a dated Anthropic snapshot by its family',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
      key: 'anthropic/claude-sonnet-4-5',
    },
    {
      name: 'finds an Anthropic alias by its family',
      provider: 'anthropic',
      model: 'claude-3-7-sonnet-latest',
      key: 'anthropic/claude-3-7-sonnet',
    },
    {
      name: 'does not take Opus 4.5 for Opus 4',
      provider: 'anthropic',
      model: 'claude-opus-4-5-20251101',
      key: 'anthropic/claude-opus-4-5',
    },
    {
      name: 'finds a Bedrock model id by its family',
      provider: 'bedrock',
      model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      key: 'bedrock/anthropic.claude-sonnet-4-5',
    },
    {
      name: 'finds a Bedrock inference profile by its family',
      provider: 'aws-bedrock',
      model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      key: 'aws-bedrock/us.anthropic.claude-3-5-haiku',
    },
    { name: 'prices any Ollama model at zero', provider: 'ollama', model: 'llama3.2:latest', key: 'ollama/*' },
    { name: 'prices the echo stand-in at zero', provider: 'echo', model: 'echo', key: 'echo/*' },
  ])('$name', ({ provider, model, key }) => {
    expect(builtin.priceOf(provider, model)).toBe(BUILTIN_PRICES[key]);
  });

  it.each([
    { name: 'a model of another provider', provider: 'anthropic', model: 'gpt-4o' },
    { name: 'a name that only starts like a model', provider: 'openai', model: 'gpt-4oo' },
    { name: 'an unknown provider', provider: 'mistral', model: 'mistral-large' },
    { name: 'a model named like an Object.prototype property', provider: 'openai', model: 'constructor' },
  ])('gives no price for $name', ({ provider, model }) => {
    expect(builtin.priceOf(provider, model)).toBeUndefined();
  });

  it('gives the default price to a model found nowhere, and only to it', () => {
    const table = new PriceTable({ defaultPrice: custom });
    expect(table.priceOf('mistral', 'mistral-large')).toEqual(custom);
    expect(table.priceOf('openai', 'gpt-4o')).toBe(BUILTIN_PRICES['openai/gpt-4o']);
  });

  it.each<{ name: string; overrides: Record<string, ModelPrice>; provider: string; model: string; expected: unknown }>([
    {
      name: 'an override of provider/model beats one of the bare model',
      overrides: { 'openai/gpt-4o': custom, 'gpt-4o': { input: 1, output: 1 } },
      provider: 'openai',
      model: 'gpt-4o',
      expected: custom,
    },
    {
      name: 'an override of the bare model beats the built-in, for any provider',
      overrides: { 'gpt-4o': custom },
      provider: 'azure',
      model: 'gpt-4o',
      expected: custom,
    },
    {
      name: "an override of one provider's model leaves the same model elsewhere alone",
      overrides: { 'azure/gpt-4o': custom },
      provider: 'openai',
      model: 'gpt-4o',
      expected: BUILTIN_PRICES['openai/gpt-4o'],
    },
    {
      name: 'an override family prices snapshots of a model the built-ins lack',
      overrides: { 'mistral/mistral-large': custom },
      provider: 'mistral',
      model: 'mistral-large-2411',
      expected: custom,
    },
    {
      name: 'an override family beats a built-in family of the same length',
      overrides: { 'gpt-4o-mini': custom },
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      expected: custom,
    },
    {
      name: 'a longer built-in family beats a shorter override family',
      overrides: { 'openai/gpt-4o': custom },
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      expected: BUILTIN_PRICES['openai/gpt-4o-mini'],
    },
    {
      name: 'a provider wildcard prices the models the built-ins lack',
      overrides: { 'openai/*': custom },
      provider: 'openai',
      model: 'gpt-image-1',
      expected: custom,
    },
    {
      name: 'a provider wildcard does not replace built-in prices',
      overrides: { 'openai/*': custom },
      provider: 'openai',
      model: 'gpt-4o-2024-08-06',
      expected: BUILTIN_PRICES['openai/gpt-4o'],
    },
    {
      name: 'an override wildcard beats a built-in one',
      overrides: { 'ollama/*': custom },
      provider: 'ollama',
      model: 'llama3.2',
      expected: custom,
    },
  ])('$name', ({ overrides, provider, model, expected }) => {
    expect(new PriceTable({ overrides }).priceOf(provider, model)).toEqual(expected);
  });

  it('keeps no more than 1,000 models cached and still answers after clearing', () => {
    const table = new PriceTable({ defaultPrice: custom });
    for (let i = 0; i < 2500; i++) expect(table.priceOf('mistral', `model-${i}`)).toEqual(custom);
    const cache = (table as unknown as { cache: Map<string, unknown> }).cache;
    expect(cache.size).toBeLessThanOrEqual(1000);
    expect(table.priceOf('openai', 'gpt-4o')).toBe(BUILTIN_PRICES['openai/gpt-4o']);
  });

  it('keeps a provider with a slash apart from a model with one', () => {
    const table = new PriceTable({ overrides: { 'a/*': custom } });
    expect(table.priceOf('a/b', 'c')).toBeUndefined();
    expect(table.priceOf('a', 'b/c')).toEqual(custom);
  });

  it('refuses a bad override when built', () => {
    expect(() => new PriceTable({ overrides: { 'openai/gpt-4o': { input: -1, output: 1 } } })).toThrow(
      "price override: 'openai/gpt-4o'.input must be a non-negative number",
    );
    expect(() => new PriceTable({ defaultPrice: { input: 1, output: Number.NaN } })).toThrow(
      "default price: 'default'.output must be a non-negative number",
    );
  });
});

describe('PriceTable.costMicros', () => {
  const table = new PriceTable({
    overrides: { 'test/thirds': { input: 1 / 3, output: 0 }, 'test/pricey': { input: 1000, output: 1000 } },
  });

  it.each([
    {
      name: 'bills gpt-4o-mini prompt and completion tokens at their prices',
      model: 'gpt-4o-mini',
      usage: { promptTokens: 1000, completionTokens: 500 },
      micros: 450,
    },
    {
      name: 'bills cached prompt tokens at the cached price',
      model: 'gpt-4o-mini',
      usage: { promptTokens: 1000, completionTokens: 500, cachedPromptTokens: 400 },
      // 600 × 0.15 + 400 × 0.075 + 500 × 0.6
      micros: 420,
    },
    {
      name: 'bills a dated snapshot at its family price',
      model: 'gpt-4o-2024-08-06',
      usage: { promptTokens: 10_000, completionTokens: 1000, cachedPromptTokens: 2000 },
      // 8,000 × 2.5 + 2,000 × 1.25 + 1,000 × 10
      micros: 32_500,
    },
    {
      name: 'bills no more cached tokens than prompt tokens',
      model: 'gpt-4o-mini',
      usage: { promptTokens: 100, completionTokens: 0, cachedPromptTokens: 500 },
      micros: 8,
    },
    {
      name: 'rounds a fraction of a µUSD up',
      model: 'gpt-4.1-nano',
      usage: { promptTokens: 1, completionTokens: 0 },
      micros: 1,
    },
    {
      name: 'rounds a sum that floats would put just above an integer to that integer',
      model: 'o4-mini',
      // 100 × 1.1 is 110.00000000000001 in floating point
      usage: { promptTokens: 100, completionTokens: 0 },
      micros: 110,
    },
    {
      name: 'charges nothing for no tokens',
      model: 'gpt-4o',
      usage: { promptTokens: 0, completionTokens: 0 },
      micros: 0,
    },
  ])('$name', ({ model, usage, micros }) => {
    expect(table.costMicros('openai', model, usage)).toBe(micros);
  });

  it('bills a cached token at the input price when the model has no cached price', () => {
    const usage = { promptTokens: 1000, completionTokens: 0, cachedPromptTokens: 1000 };
    expect(table.costMicros('openai', 'gpt-4-turbo', usage)).toBe(10_000);
  });

  it('rounds the total, not each part, up', () => {
    // 0.1 + 0.4 µUSD
    expect(table.costMicros('openai', 'gpt-4.1-nano', { promptTokens: 1, completionTokens: 1 })).toBe(1);
  });

  it('keeps prices to 1e-6 USD per million tokens', () => {
    // 1/3 is kept as 0.333333: 3,000,000 tokens cost 999,999 µUSD, not 1,000,000
    expect(table.costMicros('test', 'thirds', { promptTokens: 3_000_000, completionTokens: 0 })).toBe(999_999);
  });

  it('stays exact past 2^53 price units', () => {
    const usage = { promptTokens: 5_000_000_000, completionTokens: 3_000_000_001 };
    expect(table.costMicros('test', 'pricey', usage)).toBe(8_000_000_001_000);
  });

  it('charges local models nothing', () => {
    expect(table.costMicros('ollama', 'llama3.2', { promptTokens: 1e6, completionTokens: 1e6 })).toBe(0);
  });

  it('gives no cost for a model with no price', () => {
    expect(table.costMicros('mistral', 'mistral-large', { promptTokens: 1, completionTokens: 1 })).toBeUndefined();
  });

  it.each([
    { field: 'promptTokens', usage: { promptTokens: -1, completionTokens: 0 } },
    { field: 'completionTokens', usage: { promptTokens: 0, completionTokens: 1.5 } },
    { field: 'cachedPromptTokens', usage: { promptTokens: 0, completionTokens: 0, cachedPromptTokens: Number.NaN } },
  ])('refuses a bad $field', ({ field, usage }) => {
    expect(() => table.costMicros('openai', 'gpt-4o', usage)).toThrow(`usage.${field} must be a non-negative integer`);
  });
});

describe('parseModelPrices', () => {
  it('reads prices, cached ones optional, and every key form', () => {
    const text = JSON.stringify({
      'openai/gpt-4o': { input: 2, output: 8, cachedInput: 0.5 },
      'my-model': { input: 0, output: 0.5 },
      'vllm/*': { input: 0.1, output: 0.1 },
    });
    expect(parseModelPrices(text)).toEqual({
      'openai/gpt-4o': { input: 2, output: 8, cachedInput: 0.5 },
      'my-model': { input: 0, output: 0.5 },
      'vllm/*': { input: 0.1, output: 0.1 },
    });
  });

  it('keeps a key named __proto__ a key', () => {
    const parsed = parseModelPrices('{"__proto__": {"input": 1, "output": 2}}');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
  });

  it.each([
    { name: 'text that is not JSON', text: '{openai: 1}', error: 'STEWARD_MODEL_PRICES is not JSON' },
    { name: 'an array', text: '[]', error: 'STEWARD_MODEL_PRICES must be a JSON object' },
    { name: 'null', text: 'null', error: 'STEWARD_MODEL_PRICES must be a JSON object' },
    { name: 'a price that is not an object', text: '{"gpt-4o": 2.5}', error: "'gpt-4o' must be an object" },
    { name: 'a missing field', text: '{"gpt-4o": {"input": 2.5}}', error: "'gpt-4o'.output is missing" },
    {
      name: 'a negative price',
      text: '{"gpt-4o": {"input": -2.5, "output": 10}}',
      error: "'gpt-4o'.input must be a non-negative number (USD per 1M tokens), got -2.5",
    },
    {
      name: 'a price written as a string',
      text: '{"gpt-4o": {"input": 2.5, "output": "10"}}',
      error: "'gpt-4o'.output must be a non-negative number",
    },
    {
      name: 'a null cached price',
      text: '{"gpt-4o": {"input": 2.5, "output": 10, "cachedInput": null}}',
      error: "'gpt-4o'.cachedInput must be a non-negative number",
    },
    {
      name: 'a price too large to be finite',
      text: '{"gpt-4o": {"input": 1e999, "output": 10}}',
      error: "'gpt-4o'.input must be a non-negative number (USD per 1M tokens), got Infinity",
    },
    {
      name: 'a misspelt field',
      text: '{"gpt-4o": {"input": 2.5, "output": 10, "cached_input": 1}}',
      error: "'gpt-4o' has an unknown field 'cached_input'",
    },
    { name: 'an empty key', text: '{"": {"input": 1, "output": 1}}', error: "key '' must be a non-empty model name" },
    {
      name: 'a wildcard inside a model name',
      text: '{"openai/gpt-4*": {"input": 1, "output": 1}}',
      error: "key 'openai/gpt-4*' has a wildcard other than a whole provider",
    },
    {
      name: 'a wildcard without a provider',
      text: '{"*": {"input": 1, "output": 1}}',
      error: "key '*' has a wildcard other than a whole provider",
    },
  ])('refuses $name', ({ text, error }) => {
    expect(() => parseModelPrices(text)).toThrow(error);
  });
});

describe('parseDefaultPrice', () => {
  it.each([
    { text: '1,2', price: { input: 1, output: 2 } },
    { text: ' 0.5 , 1.5 , 0.05 ', price: { input: 0.5, output: 1.5, cachedInput: 0.05 } },
    { text: '.25,3.', price: { input: 0.25, output: 3 } },
    { text: '0,0', price: { input: 0, output: 0 } },
  ])('reads $text', ({ text, price }) => {
    expect(parseDefaultPrice(text)).toEqual(price);
  });

  it.each([
    { text: '1', error: 'must be "input,output" or "input,output,cachedInput"' },
    { text: '1,2,3,4', error: 'must be "input,output" or "input,output,cachedInput"' },
    { text: ',2', error: "input must be a non-negative decimal number, got ''" },
    { text: '1,-2', error: "output must be a non-negative decimal number, got '-2'" },
    { text: '1,2,abc', error: "cachedInput must be a non-negative decimal number, got 'abc'" },
    { text: '0x10,2', error: "input must be a non-negative decimal number, got '0x10'" },
    { text: 'Infinity,2', error: "input must be a non-negative decimal number, got 'Infinity'" },
  ])('refuses $text', ({ text, error }) => {
    expect(() => parseDefaultPrice(text)).toThrow(`STEWARD_DEFAULT_MODEL_PRICE`);
    expect(() => parseDefaultPrice(text)).toThrow(error);
  });
});
