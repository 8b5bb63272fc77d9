import { describe, expect, it } from 'vitest';
import type { ConditionAction, PolicyCondition } from '../../../api/http/orchestrator.js';
import type { JsonValue } from '../../../api/http/safe.js';
import { compile, decide, parseModule } from '../../../rego/index.js';
import { compileConditions, ConditionsError, fieldRef, packageOfId, type ConditionPolicy } from './conditions.js';

const BLOCK: ConditionAction[] = [{ type: 'block', config: { reason: 'not here' } }];

const policy = (
  conditions: PolicyCondition[],
  actions: ConditionAction[] = BLOCK,
  name = 'Test policy',
): ConditionPolicy => ({ id: 'test-policy', name, conditions, actions });
const when = (field: string, operator: string, value: JsonValue): PolicyCondition => ({ field, operator, value });

/** The decision of the compiled module on `input`, evaluated as the gateway does (strict builtin errors). */
function decideOn(p: ConditionPolicy, input: unknown) {
  const out = compileConditions(p);
  const d = decide(
    compile([{ name: `${p.id}.rego`, source: out.rego, regoVersion: 'v1' }]),
    out.package,
    input,
    {},
    { strict: true },
  );
  return { ...d, action: out.action };
}

const matches = (c: PolicyCondition, input: unknown) => {
  const d = decideOn(policy([c]), input);
  expect(d.error).toBeUndefined();
  return d.blocked;
};

const issuesOf = (p: ConditionPolicy) => {
  try {
    compileConditions(p);
  } catch (err) {
    expect(err).toBeInstanceOf(ConditionsError);
    return (err as ConditionsError).issues;
  }
  throw new Error('compiled');
};

describe('compileConditions: operators', () => {
  const cases: { name: string; c: PolicyCondition; input: unknown; want: boolean }[] = [
    {
      name: 'equals compares exactly (case kept)',
      c: when('user.role', 'equals', 'admin'),
      input: { user: { role: 'admin' } },
      want: true,
    },
    {
      name: 'equals is false for another case',
      c: when('user.role', 'equals', 'admin'),
      input: { user: { role: 'Admin' } },
      want: false,
    },
    {
      name: 'equals compares numbers as numbers',
      c: when('context.tier', 'equals', 3),
      input: { context: { tier: 3.0 } },
      want: true,
    },
    {
      name: 'equals is false for a number against its text',
      c: when('context.tier', 'equals', 3),
      input: { context: { tier: '3' } },
      want: false,
    },
    {
      name: 'equals takes booleans',
      c: when('context.internal', 'equals', true),
      input: { context: { internal: true } },
      want: true,
    },
    {
      name: 'not_equals holds for another value',
      c: when('user.role', 'not_equals', 'admin'),
      input: { user: { role: 'guest' } },
      want: true,
    },
    {
      name: 'not_equals is false for the value',
      c: when('user.role', 'not_equals', 'admin'),
      input: { user: { role: 'admin' } },
      want: false,
    },
    {
      name: 'contains ignores case',
      c: when('query', 'contains', 'Acme Corp'),
      input: { query: 'is ACME CORP cheaper?' },
      want: true,
    },
    {
      name: 'contains is false without the text',
      c: when('query', 'contains', 'acme'),
      input: { query: 'hello' },
      want: false,
    },
    {
      name: 'not_contains holds without the text',
      c: when('query', 'not_contains', 'please'),
      input: { query: 'do it now' },
      want: true,
    },
    {
      name: 'not_contains is false with the text in another case',
      c: when('query', 'not_contains', 'please'),
      input: { query: 'PLEASE do' },
      want: false,
    },
    {
      name: 'starts_with ignores case',
      c: when('query', 'starts_with', 'drop'),
      input: { query: 'DROP table x' },
      want: true,
    },
    {
      name: 'starts_with is false elsewhere in the text',
      c: when('query', 'starts_with', 'drop'),
      input: { query: 'please drop' },
      want: false,
    },
    { name: 'ends_with ignores case', c: when('query', 'ends_with', '?'), input: { query: 'why?' }, want: true },
    {
      name: 'regex matches with RE2 syntax',
      c: when('query', 'regex', '\\bproject\\s+x\\d{2}\\b'),
      input: { query: 'about project  x42 today' },
      want: true,
    },
    {
      name: 'regex keeps case unless (?i)',
      c: when('query', 'regex', 'secret'),
      input: { query: 'SECRET' },
      want: false,
    },
    {
      name: 'regex ignores case with (?i)',
      c: when('query', 'regex', '(?i)secret'),
      input: { query: 'SECRET' },
      want: true,
    },
    {
      name: 'in holds for a listed value',
      c: when('client.tenant_id', 'in', ['eu', 'us']),
      input: { client: { tenant_id: 'eu' } },
      want: true,
    },
    {
      name: 'in is false for another value',
      c: when('client.tenant_id', 'in', ['eu', 'us']),
      input: { client: { tenant_id: 'apac' } },
      want: false,
    },
    {
      name: 'not_in holds for another value',
      c: when('request_type', 'not_in', ['chat', 'sql']),
      input: { request_type: 'multi-agent-plan' },
      want: true,
    },
    {
      name: 'not_in is false for a listed value',
      c: when('request_type', 'not_in', ['chat', 'sql']),
      input: { request_type: 'sql' },
      want: false,
    },
    {
      name: 'greater_than compares numbers',
      c: when('context.risk', 'greater_than', 0.8),
      input: { context: { risk: 0.9 } },
      want: true,
    },
    {
      name: 'greater_than is false at the value',
      c: when('context.risk', 'greater_than', 0.8),
      input: { context: { risk: 0.8 } },
      want: false,
    },
    {
      name: 'greater_than is false for a number in text',
      c: when('context.risk', 'greater_than', 0.8),
      input: { context: { risk: '0.9' } },
      want: false,
    },
    {
      name: 'less_than compares numbers',
      c: when('context.cost', 'less_than', 1e21),
      input: { context: { cost: 5 } },
      want: true,
    },
    {
      name: 'a key with a dash reads that key, deeply',
      c: when('context.x-app.build-id', 'equals', 'b-7'),
      input: { context: { 'x-app': { 'build-id': 'b-7' } } },
      want: true,
    },
    {
      name: 'client.organization_id reads input.client',
      c: when('client.organization_id', 'equals', 'acme'),
      input: { client: { id: 'k', organization_id: 'acme' } },
      want: true,
    },
  ];
  it.each(cases)('$name', ({ c, input, want }) => {
    expect(matches(c, input)).toBe(want);
  });

  it('holds only when every condition holds (AND)', () => {
    const p = policy([when('query', 'contains', 'acme'), when('user.role', 'equals', 'guest')]);
    expect(decideOn(p, { query: 'acme', user: { role: 'guest' } }).blocked).toBe(true);
    expect(decideOn(p, { query: 'acme', user: { role: 'admin' } }).blocked).toBe(false);
    expect(decideOn(p, { query: 'other', user: { role: 'guest' } }).blocked).toBe(false);
  });
});

describe('compileConditions: a missing field or a value of another type is a false condition, never an error', () => {
  const ops: [string, JsonValue][] = [
    ['equals', 'a'],
    ['not_equals', 'a'],
    ['contains', 'a'],
    ['not_contains', 'a'],
    ['starts_with', 'a'],
    ['ends_with', 'a'],
    ['regex', 'a'],
    ['in', ['a']],
    ['not_in', ['a']],
    ['greater_than', 1],
    ['less_than', 1],
  ];
  /** Inputs where user.role is missing, or not a string, number or boolean ("present": there, of another type). */
  const shapes: { shape: string; input: unknown; present: boolean }[] = [
    { shape: 'an empty input', input: {}, present: false },
    { shape: 'user as a string', input: { user: 'x' }, present: false },
    { shape: 'user as a list', input: { user: ['x'] }, present: false },
    { shape: 'user.role as an object', input: { user: { role: { a: 1 } } }, present: true },
    { shape: 'user.role as a list', input: { user: { role: ['a'] } }, present: true },
    { shape: 'user.role as null', input: { user: { role: null } }, present: true },
    { shape: 'user.role as a boolean', input: { user: { role: true } }, present: true },
  ];
  const cases = ops.flatMap(([op, value]) =>
    shapes.map(({ shape, input, present }) => ({ name: `${op} on ${shape}`, op, value, input, present })),
  );
  it.each(cases)('$name', ({ op, value, input, present }) => {
    const d = decideOn(policy([when('user.role', op, value)]), input);
    expect(d.error).toBeUndefined();
    // NB: not_equals and not_in hold for a value that is there but another
    expect(d.blocked).toBe(present && (op === 'not_equals' || op === 'not_in'));
  });
});

describe('compileConditions: actions', () => {
  const q = when('query', 'contains', 'x');
  it('makes block a deny with its reason, and spec.action block', () => {
    const d = decideOn(policy([q], [{ type: 'block', config: { reason: 'No x.' } }]), { query: 'x' });
    expect(d).toMatchObject({ action: 'block', deny: ['No x.'], warn: [] });
  });
  it('names the policy in the default message of a block', () => {
    expect(decideOn(policy([q], [{ type: 'block' }], 'Block "x" talk'), { query: 'x' }).deny).toEqual([
      'blocked by policy "Block \\"x\\" talk"',
    ]);
  });
  it('makes warn a warn message that does not block, and spec.action warn', () => {
    const d = decideOn(policy([q], [{ type: 'warn', config: { message: 'careful' } }]), { query: 'x' });
    expect(d).toMatchObject({ action: 'warn', blocked: false, deny: [], warn: ['careful'] });
  });
  it('makes log a deny of a Policy whose action is log (recorded, not blocking)', () => {
    const d = decideOn(policy([q], [{ type: 'log' }]), { query: 'x' });
    expect(d).toMatchObject({ action: 'log', deny: ['policy "Test policy" matched'] });
  });
  it('keeps warn messages beside a log action', () => {
    expect(
      decideOn(policy([q], [{ type: 'warn' }, { type: 'log', config: { message: 'seen' } }]), { query: 'x' }),
    ).toMatchObject({ action: 'log', deny: ['seen'], warn: ['policy "Test policy" matched'] });
  });
  it('drops a log action beside a block: its deny would block too', () => {
    expect(
      decideOn(
        policy(
          [q],
          [
            { type: 'log', config: { message: 'seen' } },
            { type: 'block', config: { reason: 'no' } },
          ],
        ),
        { query: 'x' },
      ),
    ).toMatchObject({ action: 'block', deny: ['no'] });
  });
  it('says nothing when the conditions do not hold', () => {
    expect(decideOn(policy([q], [{ type: 'block' }, { type: 'warn' }]), { query: 'y' })).toMatchObject({
      blocked: false,
      deny: [],
      warn: [],
    });
  });
});

describe('compileConditions: no value of the caller becomes Rego syntax', () => {
  const hostile = [
    '"}\ndeny contains "pwned" if { true }\n#',
    '\\") || true #',
    'line\nbreak\r\tand \u2028 \u2029 separators',
    'quotes \' " ` and \\ backslashes \\\\',
    'unicode: Grüße, 日本語, emoji 😀, a combining e\u0301',
    '\u0001\u001f control characters \u007f',
    '# not a comment',
  ];
  it.each(hostile.map((value) => ({ name: JSON.stringify(value), value })))(
    'matches $name literally and adds no rule',
    ({ value }) => {
      const p = policy(
        [when('query', 'contains', value), when('context.note', 'not_equals', value)],
        [{ type: 'block', config: { reason: value } }],
        value,
      );
      const out = compileConditions(p);
      const module = parseModule('test.rego', out.rego, { regoVersion: 'v1' });
      expect(module.rules.map((r) => (r.head.ref[0] as { name?: string }).name)).toEqual(['matched', 'deny']);
      expect(decideOn(p, { query: `before ${value} after`, context: { note: 'other' } }).deny).toEqual([value]);
      expect(decideOn(p, { query: 'nothing of it', context: { note: 'other' } }).deny).toEqual([]);
    },
  );
});

describe('compileConditions: refusals name the condition', () => {
  it('names an unknown operator with the list of operators', () => {
    expect(issuesOf(policy([when('query', 'like', 'x')]))).toEqual([
      {
        field: 'conditions[0].operator',
        message:
          'unknown operator "like"; one of equals, not_equals, contains, not_contains, starts_with, ends_with, regex, in, not_in, greater_than, less_than',
      },
    ]);
  });
  it.each([
    'response',
    'user',
    'client.secret',
    'client',
    'context.a.b.c.d.e.f.g.h.i',
    'context.a b',
    'user..role',
    'query.text',
  ])('names the unknown field %s', (field) => {
    const [issue] = issuesOf(policy([when('query', 'equals', 'x'), when(field, 'equals', 'x')]));
    expect(issue).toEqual({
      field: 'conditions[1].field',
      message: expect.stringMatching(/^unknown field ".*"; one of query, request_type, user\.<key>/),
    });
  });
  it.each([
    ['contains', 5, 'must be a non-empty string'],
    ['contains', '', 'must be a non-empty string'],
    ['regex', ['a'], 'must be a non-empty string'],
    ['in', 'a', 'must be a list'],
    ['in', [], 'must be a list'],
    ['not_in', [{ a: 1 }], 'must be a list'],
    ['greater_than', '5', 'must be a number'],
    ['equals', { a: 1 }, 'must be a string, number, boolean or null'],
    ['equals', 'x'.repeat(5000), 'must be at most 4096 characters'],
  ] as [string, JsonValue, string][])('refuses %s with the value %j', (op, value, problem) => {
    expect(issuesOf(policy([when('query', op, value)]))).toEqual([
      { field: 'conditions[0].value', message: expect.stringContaining(problem) },
    ]);
  });
  it('refuses an invalid regex, compiled by the engine, naming the condition', () => {
    const [issue] = issuesOf(policy([when('query', 'contains', 'a'), when('query', 'regex', '(unclosed')]));
    expect(issue).toEqual({
      field: 'conditions[1].value',
      message: expect.stringMatching(/^invalid regex: error parsing regexp: missing closing \)/),
    });
  });
  it('refuses what RE2 does not have (backreferences, lookahead)', () => {
    expect(issuesOf(policy([when('query', 'regex', '(a)\\1')]))[0]!.field).toBe('conditions[0].value');
    expect(issuesOf(policy([when('query', 'regex', 'a(?=b)')]))[0]!.field).toBe('conditions[0].value');
  });
  it('names an unknown action and a reason that is not text', () => {
    expect(
      issuesOf(
        policy([when('query', 'contains', 'a')], [{ type: 'redact' }, { type: 'block', config: { reason: 7 } }]),
      ),
    ).toEqual([
      { field: 'actions[0].type', message: 'unknown action "redact"; one of block, warn, log' },
      { field: 'actions[1].config.reason', message: 'must be a string of 1 to 1000 characters' },
    ]);
  });
  it('lists every issue at once', () => {
    expect(
      issuesOf(policy([when('nope', 'like', 1), when('query', 'contains', 2)], [{ type: 'alert' }])).map(
        (i) => i.field,
      ),
    ).toEqual(['conditions[0].field', 'conditions[0].operator', 'conditions[1].value', 'actions[0].type']);
  });
});

describe('fieldRef and packageOfId', () => {
  it('reads keys through JSON literals', () => {
    expect(fieldRef('context.x-app.id')).toBe('input.context["x-app"]["id"]');
    expect(fieldRef('client.tenant_id')).toBe('input.client.tenant_id');
    expect(fieldRef('request_type')).toBe('input.request_type');
  });
  it('makes a Rego package of any id', () => {
    expect(packageOfId('block-competitor-talk')).toBe('steward.dynamic.block_competitor_talk');
    expect(packageOfId('3d-printing')).toBe('steward.dynamic._3d_printing');
    expect(compileConditions({ ...policy([when('query', 'contains', 'a')]), id: '3d-printing' }).rego).toContain(
      'package steward.dynamic._3d_printing\n',
    );
  });
});
