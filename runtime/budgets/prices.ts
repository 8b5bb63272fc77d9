/**
 * Model prices and the cost of a call. Prices are USD per million tokens; money is integer micro-dollars (µUSD),
 * which makes a call's cost tokens × price with no scaling: 1,000 tokens at $0.15/M are 150 µUSD.
 */

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached prompt tokens (prompt-cache reads). @default input */
  cachedInput?: number;
}

export interface PriceUsage {
  /** All prompt tokens, cached ones included. */
  promptTokens: number;
  completionTokens: number;
  /** The part of `promptTokens` served from the provider's prompt cache. @default 0 */
  cachedPromptTokens?: number;
}

function price(input: number, output: number, cachedInput?: number): ModelPrice {
  return Object.freeze(cachedInput === undefined ? { input, output } : { input, output, cachedInput });
}

// List prices as of 2026, standard tier (no batch or priority discounts, Anthropic's long-context rates and
// cache writes not modelled). Providers change them; operators correct them with STEWARD_MODEL_PRICES.
// Dated snapshots (gpt-4o-mini-2024-07-18, claude-sonnet-4-5-20250929) find these by prefix, so a snapshot
// priced differently from its family needs its own entry (gpt-4o-2024-05-13).
const OPENAI: Record<string, ModelPrice> = {
  'gpt-5': price(1.25, 10, 0.125),
  'gpt-5.1': price(1.25, 10, 0.125),
  'gpt-5-mini': price(0.25, 2, 0.025),
  'gpt-5-nano': price(0.05, 0.4, 0.005),
  'gpt-5-pro': price(15, 120),
  'gpt-4.1': price(2, 8, 0.5),
  'gpt-4.1-mini': price(0.4, 1.6, 0.1),
  'gpt-4.1-nano': price(0.1, 0.4, 0.025),
  'gpt-4o': price(2.5, 10, 1.25),
  'gpt-4o-2024-05-13': price(5, 15),
  'gpt-4o-mini': price(0.15, 0.6, 0.075),
  'gpt-4-turbo': price(10, 30),
  'gpt-3.5-turbo': price(0.5, 1.5),
  o1: price(15, 60, 7.5),
  'o1-pro': price(150, 600),
  'o1-mini': price(1.1, 4.4, 0.55),
  o3: price(2, 8, 0.5),
  'o3-pro': price(20, 80),
  'o3-mini': price(1.1, 4.4, 0.55),
  'o4-mini': price(1.1, 4.4, 0.275),
};

// NB: a new minor version finds the nearest family entry by prefix (claude-opus-4-6 → claude-opus-4); list each
// release whose price differs from its family's (claude-opus-4-5 is a third of claude-opus-4).
const ANTHROPIC: Record<string, ModelPrice> = {
  'claude-opus-4-5': price(5, 25, 0.5),
  'claude-opus-4-1': price(15, 75, 1.5),
  'claude-opus-4': price(15, 75, 1.5),
  'claude-sonnet-4-5': price(3, 15, 0.3),
  'claude-sonnet-4': price(3, 15, 0.3),
  'claude-haiku-4-5': price(1, 5, 0.1),
  'claude-3-7-sonnet': price(3, 15, 0.3),
  'claude-3-5-sonnet': price(3, 15, 0.3),
  'claude-3-5-haiku': price(0.8, 4, 0.08),
  'claude-3-opus': price(15, 75, 1.5),
  'claude-3-haiku': price(0.25, 1.25, 0.03),
};

// Bedrock names Anthropic's models `anthropic.<id>-v1:0`, and cross-region inference profiles put a geography
// in front (`us.anthropic.…`, `global.anthropic.…`); newer Claude models are reachable only through a profile.
// Regional profiles may carry a premium over list price, which is the operator's to set.
const BEDROCK_PROFILES = ['', 'us.', 'eu.', 'apac.', 'jp.', 'au.', 'global.'];
// `bedrock` as a configured provider name, `aws-bedrock` as Steward's provider type.
const BEDROCK_PROVIDERS = ['bedrock', 'aws-bedrock'];

function keyed(prefix: string, prices: Record<string, ModelPrice>): [string, ModelPrice][] {
  return Object.entries(prices).map(([model, p]) => [`${prefix}${model}`, p]);
}

/** Built-in list prices, keys `provider/model` or `provider/*`. */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze(
  Object.fromEntries([
    ...keyed('openai/', OPENAI),
    ...keyed('anthropic/', ANTHROPIC),
    ...BEDROCK_PROVIDERS.flatMap((provider) =>
      BEDROCK_PROFILES.flatMap((profile) => keyed(`${provider}/${profile}anthropic.`, ANTHROPIC)),
    ),
    // Local models cost nothing; their tokens still count against token budgets.
    ['ollama/*', price(0, 0)],
    ['echo/*', price(0, 0)],
  ]),
);

// Map lookups rather than property reads: a model named `constructor` must not find Object.prototype's.
const BUILTINS: ReadonlyMap<string, ModelPrice> = new Map(Object.entries(BUILTIN_PRICES));
const BUILTIN_FAMILIES = new Map<string, [string, ModelPrice][]>();
for (const [key, p] of BUILTINS) {
  const slash = key.indexOf('/');
  const provider = key.slice(0, slash);
  const model = key.slice(slash + 1);
  if (model === '*') continue;
  const family = BUILTIN_FAMILIES.get(provider) ?? [];
  family.push([model, p]);
  BUILTIN_FAMILIES.set(provider, family);
}

export interface PriceTableOptions {
  /** Overrides and additions; keys `provider/model`, `model` (any provider) or `provider/*` (its models). */
  overrides?: Record<string, ModelPrice>;
  /** The price of a model found nowhere; absent: token-only accounting for it. */
  defaultPrice?: ModelPrice;
}

/** Most provider/model pairs remembered; model names come from requests, so the cache must not grow with them. */
const MAX_CACHED = 1000;
/** Price units per (USD per million tokens): a unit is 1e-6 µUSD a token, so sums are exact integers. */
const UNITS_PER_PRICE = 1_000_000n;

/**
 * Resolves a provider's model to a price. Built once from configuration; lookups are cached, so pricing a call
 * is a Map hit after the first call for a model.
 */
export class PriceTable {
  private readonly overrides: ReadonlyMap<string, ModelPrice>;
  private readonly defaultPrice: ModelPrice | undefined;
  /** null: known to have no price */
  private readonly cache = new Map<string, ModelPrice | null>();

  constructor(options: PriceTableOptions = {}) {
    const overrides = Object.entries(options.overrides ?? {}).map(([key, p]): [string, ModelPrice] => [
      checkKey('price override', key),
      checkPrice('price override', key, p),
    ]);
    this.overrides = new Map(overrides);
    this.defaultPrice =
      options.defaultPrice === undefined ? undefined : checkPrice('default price', 'default', options.defaultPrice);
  }

  /**
   * The price of a provider's model, or undefined (token-only accounting). Lookup order: override
   * `provider/model`, override `model`, built-in `provider/model`, the longest override or built-in key that
   * is a prefix of the model followed by '-' (dated snapshots), override `provider/*`, built-in `provider/*`,
   * then the default price.
   */
  priceOf(provider: string, model: string): ModelPrice | undefined {
    // NB: not `provider/model`: a model may hold a slash itself, and `a/b`+`c` must not meet `a`+`b/c`.
    const cacheKey = `${provider}\u0000${model}`;
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.lookup(provider, model);
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(cacheKey, found ?? null);
    return found;
  }

  /**
   * The cost of a call in µUSD, rounded up to a whole µUSD, or undefined when the model has no price. Cached
   * prompt tokens are billed at `cachedInput` (else `input`). Throws an Error for a count that is not a
   * non-negative integer.
   */
  costMicros(provider: string, model: string, usage: PriceUsage): number | undefined {
    const prompt = checkCount('promptTokens', usage.promptTokens);
    const completion = checkCount('completionTokens', usage.completionTokens);
    // NB: promptTokens is what the provider bills as input, so no more than that can be billed as cached.
    const cached = Math.min(checkCount('cachedPromptTokens', usage.cachedPromptTokens ?? 0), prompt);
    const p = this.priceOf(provider, model);
    if (p === undefined) return undefined;
    // BigInt: tokens × units passes 2^53 for large calls at high prices, and float products would round.
    const units =
      BigInt(prompt - cached) * priceUnits(p.input) +
      BigInt(cached) * priceUnits(p.cachedInput ?? p.input) +
      BigInt(completion) * priceUnits(p.output);
    return Number((units + UNITS_PER_PRICE - 1n) / UNITS_PER_PRICE);
  }

  private lookup(provider: string, model: string): ModelPrice | undefined {
    const qualified = `${provider}/${model}`;
    return (
      this.overrides.get(qualified) ??
      this.overrides.get(model) ??
      BUILTINS.get(qualified) ??
      this.familyOf(provider, model) ??
      this.overrides.get(`${provider}/*`) ??
      BUILTINS.get(`${provider}/*`) ??
      this.defaultPrice
    );
  }

  /** The longest key naming a prefix of `model` followed by '-'; on a tie an override beats a built-in. */
  private familyOf(provider: string, model: string): ModelPrice | undefined {
    let best: ModelPrice | undefined;
    let bestLength = 0;
    const consider = (prefix: string, p: ModelPrice) => {
      if (prefix.length > bestLength && model.startsWith(prefix) && model[prefix.length] === '-') {
        best = p;
        bestLength = prefix.length;
      }
    };
    const ownPrefix = `${provider}/`;
    for (const [key, p] of this.overrides) {
      if (key.startsWith(ownPrefix) && !key.endsWith('/*')) consider(key.slice(ownPrefix.length), p);
    }
    for (const [key, p] of this.overrides) if (!key.endsWith('/*')) consider(key, p);
    for (const [prefix, p] of BUILTIN_FAMILIES.get(provider) ?? []) consider(prefix, p);
    return best;
  }
}

function priceUnits(usdPerMillion: number): bigint {
  // Prices are kept to 1e-6 USD per million tokens, far below any provider's list.
  return BigInt(Math.round(usdPerMillion * Number(UNITS_PER_PRICE)));
}

function checkCount(field: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`usage.${field} must be a non-negative integer, got ${n}`);
  return n;
}

/**
 * Parses STEWARD_MODEL_PRICES: a JSON object `{ "<key>": { "input": n, "output": n, "cachedInput"?: n } }`,
 * USD per million tokens, keys `provider/model`, `model` or `provider/*`. Throws an Error naming the bad key
 * and field.
 */
export function parseModelPrices(text: string): Record<string, ModelPrice> {
  const setting = 'STEWARD_MODEL_PRICES';
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${setting} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isObject(raw)) {
    throw new Error(`${setting} must be a JSON object of "<provider>/<model>": {"input", "output", "cachedInput"?}`);
  }
  // fromEntries defines properties, so a key "__proto__" stays a key instead of replacing the prototype.
  return Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [checkKey(setting, key), checkPrice(setting, key, value)]),
  );
}

/** Parses STEWARD_DEFAULT_MODEL_PRICE: `input,output` or `input,output,cachedInput`, USD per million tokens. */
export function parseDefaultPrice(text: string): ModelPrice {
  const setting = 'STEWARD_DEFAULT_MODEL_PRICE';
  const fields = text.split(',').map((f) => f.trim());
  if (fields.length < 2 || fields.length > 3) {
    throw new Error(
      `${setting} must be "input,output" or "input,output,cachedInput" (USD per 1M tokens), got '${text}'`,
    );
  }
  const names = ['input', 'output', 'cachedInput'] as const;
  const values = fields.map((f, i) => {
    // Number() would take '', '0x10' and 'Infinity'; a price is written in decimals.
    if (!/^(\d+\.?\d*|\.\d+)$/.test(f)) {
      throw new Error(`${setting}: ${names[i]} must be a non-negative decimal number, got '${f}'`);
    }
    return Number(f);
  });
  return price(values[0]!, values[1]!, values[2]);
}

function checkKey(source: string, key: string): string {
  if (key === '' || key.trim() !== key) throw new Error(`${source}: key '${key}' must be a non-empty model name`);
  const star = key.indexOf('*');
  if (star !== -1 && !(star === key.length - 1 && key.endsWith('/*') && key.length > 2)) {
    throw new Error(`${source}: key '${key}' has a wildcard other than a whole provider ('<provider>/*')`);
  }
  return key;
}

function checkPrice(source: string, key: string, value: unknown): ModelPrice {
  if (!isObject(value)) throw new Error(`${source}: '${key}' must be an object {input, output, cachedInput?}`);
  for (const field of Object.keys(value)) {
    if (field !== 'input' && field !== 'output' && field !== 'cachedInput') {
      throw new Error(`${source}: '${key}' has an unknown field '${field}' (input, output, cachedInput)`);
    }
  }
  const amount = (field: string, optional: boolean): number | undefined => {
    const v = value[field];
    if (v === undefined && optional) return undefined;
    if (v === undefined) throw new Error(`${source}: '${key}'.${field} is missing`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new Error(
        `${source}: '${key}'.${field} must be a non-negative number (USD per 1M tokens), got ${String(v)}`,
      );
    }
    return v;
  };
  return price(amount('input', false)!, amount('output', false)!, amount('cachedInput', true));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
