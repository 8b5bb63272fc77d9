import { afterEach, describe, expect, it } from 'vitest';
import { closeEngine, policy, startEngine } from '../policy/test/harness.js';
import type { PolicyEvaluator, PolicyInput } from '../policy/types.js';
import { EVALUATE_EVERY_CHARS, openOutputScan, type OutputScan, type OutputStep } from './output-scan.js';

const META = { clientId: 'c1', userToken: 'u1', provider: 'openai', model: 'gpt-x' };
const redact = (name: string, kinds: string[], extra: Record<string, unknown> = {}) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec: ${JSON.stringify({ type: 'redaction', action: 'redact', redact: { kinds }, ...extra })}\n---\n`;
/** Blocks an answer (text or tool arguments) that says `word`. */
const blockWord = (name: string, word: string, extra: Record<string, unknown> = {}) =>
  policy(
    name,
    { scope: { surfaces: ['llm_output'] }, ...extra },
    `package p.${name.replace(/-/g, '_')}\n` +
      `deny contains "answer says ${word}" if contains(input.llm.output.text, "${word}")\n` +
      `deny contains "tool says ${word}" if { some c in input.llm.output.tool_calls; contains(c.arguments, "${word}") }\n`,
  );

afterEach(closeEngine);

/** Counts evaluations and records their inputs. */
function spy(e: PolicyEvaluator): { policies: PolicyEvaluator; inputs: PolicyInput[] } {
  const inputs: PolicyInput[] = [];
  const policies = Object.create(e) as PolicyEvaluator;
  policies.evaluate = (input, scope) => {
    inputs.push(structuredClone(input));
    return e.evaluate(input, scope);
  };
  return { policies, inputs };
}

const emitted = (s: OutputStep) => (s.blocked ? '' : s.emit);

async function feed(scan: OutputScan, chunks: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of chunks) out.push(emitted(await scan.text(c)));
  return out;
}

describe('openOutputScan', () => {
  it('is inactive and passes text through when no output policy is in scope', async () => {
    const e = await startEngine(
      policy('inputs', {}, 'package p.inputs\ndeny contains "x" if contains(input.query, "x")\n'),
    );
    const scan = openOutputScan(e, META);
    expect(scan.active).toBe(false);
    expect(await scan.text('x 4111 1111 1111 1111')).toEqual({ blocked: false, emit: 'x 4111 1111 1111 1111' });
    expect(await scan.toolArguments(0, '{"a":1}')).toEqual({ blocked: false, emit: '{"a":1}' });
    expect(await scan.finish()).toEqual({
      blocked: false,
      emit: '',
      redactions: {},
      evaluation: null,
      toolArguments: new Map(),
    });
  });

  it('masks a card number split over three chunks; no piece carries its digits', async () => {
    const e = await startEngine(redact('cards', ['payment_card']));
    const scan = openOutputScan(e, META);
    expect(scan.active).toBe(true);
    const pieces = await feed(scan, ['Card 4111 11', '11 1111 ', '1111 ok']);
    const end = await scan.finish();
    expect(end).toMatchObject({ blocked: false, redactions: { payment_card: 1 }, evaluation: null });
    pieces.push(emitted(end));
    expect(pieces.join('')).toBe('Card [REDACTED:payment_card] ok');
    expect(pieces.filter((p) => /\d/.test(p))).toEqual([]);
  });

  it("redacts each tool call's arguments with its own window and flushes them at finish", async () => {
    const e = await startEngine(redact('all', ['pii', 'secrets']));
    const scan = openOutputScan(e, META);
    const args = new Map<number, string>();
    const add = (i: number, s: OutputStep) => args.set(i, (args.get(i) ?? '') + emitted(s));
    add(0, await scan.toolArguments(0, '{"card":"4111 1111 ', 'pay'));
    add(1, await scan.toolArguments(1, '{"to":"jane.doe@', 'mail'));
    add(0, await scan.toolArguments(0, '1111 1111"}'));
    add(1, await scan.toolArguments(1, 'corp.io"}'));
    const end = await scan.finish();
    for (const [i, rest] of end.toolArguments) add(i, { blocked: false, emit: rest });
    expect(args).toEqual(
      new Map([
        [0, '{"card":"[REDACTED:payment_card]"}'],
        [1, '{"to":"[REDACTED:email]"}'],
      ]),
    );
    expect(end.redactions).toEqual({ payment_card: 1, email: 1 });
  });

  it('blocks mid-stream once the answer so far says what a block policy denies, and stops there', async () => {
    const e = await startEngine(blockWord('no-launch', 'launch codes'));
    const { policies, inputs } = spy(e);
    const scan = openOutputScan(policies, { ...META, context: { app: 't' } });
    const filler = 'a'.repeat(EVALUATE_EVERY_CHARS);
    expect(await scan.text(filler)).toEqual({ blocked: false, emit: filler });
    expect(await scan.text('the launch codes are ')).toEqual({ blocked: false, emit: 'the launch codes are ' });
    const step = await scan.text('b'.repeat(EVALUATE_EVERY_CHARS));
    expect(step).toMatchObject({
      blocked: true,
      evaluation: { approved: false, blockReason: 'no-launch: answer says launch codes' },
    });
    expect(await scan.text('more')).toMatchObject({ blocked: true });
    expect(await scan.finish()).toMatchObject({ blocked: true, evaluation: { approved: false } });
    expect(inputs).toHaveLength(2);
    expect(inputs[1]).toMatchObject({
      surface: 'llm_output',
      client_id: 'c1',
      user: { id: 'u1' },
      context: { app: 't' },
      llm: {
        provider: 'openai',
        model: 'gpt-x',
        output: { text: expect.stringContaining('launch codes'), tool_calls: [] },
      },
    });
    expect(inputs[1]!.query).toBe((inputs[1]!.llm as { output: { text: string } }).output.text);
  });

  it('evaluates block policies at most once per 512 new characters, never per chunk, and once at finish', async () => {
    const e = await startEngine(blockWord('no-x', 'forbidden'));
    const { policies, inputs } = spy(e);
    const scan = openOutputScan(policies, META);
    for (let i = 0; i < 300; i++) await scan.text('word ');
    expect(inputs.length).toBeLessThanOrEqual(Math.floor(1500 / EVALUATE_EVERY_CHARS));
    const end = await scan.finish();
    expect(end).toMatchObject({ blocked: false, evaluation: { approved: true } });
    expect(inputs.at(-1)!.query).toHaveLength(1500);
  });

  it('blocks at finish on the whole answer, tool arguments included, withholding what was held', async () => {
    const e = await startEngine(blockWord('no-rm', 'rm -rf') + redact('cards', ['payment_card']));
    const scan = openOutputScan(e, META);
    expect(emitted(await scan.text('Running it now.'))).not.toContain('rm');
    await scan.toolArguments(0, '{"cmd":"rm -', 'shell');
    await scan.toolArguments(0, 'rf /"}');
    const end = await scan.finish();
    expect(end).toMatchObject({
      blocked: true,
      evaluation: { blockReason: 'no-rm: tool says rm -rf' },
      toolArguments: new Map(),
    });
  });

  it("returns the final evaluation's warnings and the rest of the text", async () => {
    const e = await startEngine(blockWord('soft', 'maybe', { action: 'warn' }));
    const scan = openOutputScan(e, META);
    const first = emitted(await scan.text('maybe so'));
    const end = await scan.finish();
    expect(end).toMatchObject({
      blocked: false,
      evaluation: { approved: true, warnings: ['soft: answer says maybe'] },
    });
    expect(first + emitted(end)).toBe('maybe so');
  });

  it('applies to the tenants its policies name', async () => {
    const e = await startEngine(redact('eu', ['email'], { scope: { tenants: ['eu'] } }));
    expect(openOutputScan(e, META).active).toBe(false);
    expect(openOutputScan(e, { ...META, tenantId: 'eu' }).active).toBe(true);
  });
});

describe('a whole answer or value', () => {
  it('judges a whole answer once, on its text and tool arguments together, then redacts both', async () => {
    const { policies, inputs } = spy(
      await startEngine(redact('cards', ['payment_card']) + blockWord('no-secret', 'SECRET')),
    );
    const end = await openOutputScan(policies, META).whole({
      text: 'Card 4111 1111 1111 1111 ok',
      toolCalls: [{ name: 'pay', arguments: '{"card":"4111 1111 1111 1111"}' }],
    });
    expect(end).toMatchObject({
      blocked: false,
      value: {
        text: 'Card [REDACTED:payment_card] ok',
        toolCalls: [{ name: 'pay', arguments: '{"card":"[REDACTED:payment_card]"}' }],
      },
      redactions: { payment_card: 2 },
    });
    expect(inputs).toHaveLength(1);
    const blocked = await openOutputScan(policies, META).whole({
      text: 'ok',
      toolCalls: [{ name: 'f', arguments: '{"x":"SECRET"}' }],
    });
    expect(blocked).toMatchObject({ blocked: true, evaluation: { triggered: ['no-secret'] } });
  });

  it('masks the string values of a connector result in place, keys untouched, and judges its text once', async () => {
    const { policies, inputs } = spy(
      await startEngine(redact('cards', ['payment_card']) + blockWord('no-secret', 'SECRET')),
    );
    const meta = { clientId: 'c1', userToken: 'u1', mcp: { connector: 'pg', operation: 'query' } };
    const rows = [{ id: 1, '4111 1111 1111 1111': 'card 4111 1111 1111 1111', n: 4111111111111111 }];
    const end = await openOutputScan(policies, meta).value(rows);
    expect(end).toMatchObject({
      blocked: false,
      value: [{ id: 1, '4111 1111 1111 1111': 'card [REDACTED:payment_card]', n: 4111111111111111 }],
      redactions: { payment_card: 1 },
    });
    expect(rows[0]!['4111 1111 1111 1111']).toBe('card 4111 1111 1111 1111');
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({
      query: 'card 4111 1111 1111 1111',
      surface: 'llm_output',
      mcp: { connector: 'pg' },
      llm: { output: { text: 'card 4111 1111 1111 1111' } },
    });
    expect(inputs[0]!.llm).not.toHaveProperty('provider');
    expect(await openOutputScan(policies, meta).value({ content: [{ type: 'text', text: 'a SECRET' }] })).toMatchObject(
      { blocked: true, evaluation: { triggered: ['no-secret'] } },
    );
  });

  it('passes a value through untouched when no output policy is in scope', async () => {
    const e = await startEngine(
      policy('inputs', {}, 'package p.inputs\ndeny contains "x" if contains(input.query, "x")\n'),
    );
    const value = { text: '4111 1111 1111 1111' };
    expect(await openOutputScan(e, META).value(value)).toEqual({
      blocked: false,
      value,
      redactions: {},
      evaluation: null,
    });
  });
});
