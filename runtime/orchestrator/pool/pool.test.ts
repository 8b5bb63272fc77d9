import { afterEach, describe, expect, it } from 'vitest';
import { AgentPool } from './pool.js';
import { AgentCommunicationError, NoHealthyAgentsError, PoolClosedError } from './errors.js';
import type { PoolStatus } from './status.js';
import { FakeAgent, ListSource, item, settle, until } from './test/fakes.js';

let pool: AgentPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

async function start(source: ListSource, reporter?: { report(s: PoolStatus): void }): Promise<AgentPool> {
  pool = await AgentPool.start({ source, reporter });
  return pool;
}

const inFlight = (p: AgentPool) => Object.fromEntries(p.members().map((m) => [m.id, m.inFlight]));

describe('AgentPool dispatch', () => {
  it('spreads items over idle members round robin, then sends each to the least loaded one', async () => {
    const [a, b, c] = [new FakeAgent('a', 3), new FakeAgent('b', 3), new FakeAgent('c', 3)];
    const p = await start(ListSource.of(a, b, c));
    const calls = [p.dispatch(item('1')), p.dispatch(item('2')), p.dispatch(item('3'))];
    await settle();
    expect([a, b, c].map((x) => x.pending.length)).toEqual([1, 1, 1]);

    b.finish();
    await calls[1];
    void p.dispatch(item('4'));
    await settle();
    expect(b.pending.map((x) => x.item.query)).toEqual(['4']);
    expect(inFlight(p)).toEqual({ a: 1, b: 1, c: 1 });
  });

  it('never gives a member more than its maxInFlight: the next item waits for a free slot', async () => {
    const [a, b] = [new FakeAgent('a', 1), new FakeAgent('b', 1)];
    const p = await start(ListSource.of(a, b));
    void p.dispatch(item('1'));
    void p.dispatch(item('2'));
    const third = p.dispatch(item('3'));
    await settle();
    expect(a.pending.length + b.pending.length).toBe(2);
    expect([...a.pending, ...b.pending].map((x) => x.item.query)).not.toContain('3');

    a.finish();
    await until(() => a.pending.length === 1, 'the waiting item reaches a');
    expect(a.pending[0]?.item.query).toBe('3');
    a.finish();
    await expect(third).resolves.toMatchObject({
      member: 'a',
      result: { status: 'success', agentId: 'a', result: '3' },
    });
  });

  it('sends an item that names an AgentConfig only to its members, or to members of no known AgentConfig', async () => {
    const [t1, t2, h, any] = [
      new FakeAgent('t1', 1),
      new FakeAgent('t2', 1),
      new FakeAgent('h', 1),
      new FakeAgent('any', 1),
    ];
    const p = await start(
      new ListSource([
        { key: 't1', kind: 'in-process', agent: t1, agentConfig: 'default/travel' },
        { key: 't2', kind: 'in-process', agent: t2, agentConfig: 'default/travel' },
        { key: 'h', kind: 'in-process', agent: h, agentConfig: 'default/hotel' },
      ]),
    );
    for (const q of ['1', '2']) void p.dispatch(item(q), undefined, { agentConfig: 'default/travel' });
    const third = p.dispatch(item('3'), undefined, { agentConfig: 'default/travel' });
    await settle();
    expect([t1.pending.length, t2.pending.length, h.pending.length]).toEqual([1, 1, 0]);
    t1.finish();
    await until(() => t1.pending.length === 1, 'the waiting travel item reaches a travel member');
    t1.finish();
    await expect(third).resolves.toMatchObject({ member: 't1' });
    await expect(p.dispatch(item('4'), undefined, { agentConfig: 'default/flights' })).rejects.toThrow(
      NoHealthyAgentsError,
    );
    await p.close();

    const q = await start(new ListSource([{ key: 'any', kind: 'remote', agent: any }]));
    const remote = q.dispatch(item('5'), undefined, { agentConfig: 'default/hotel' });
    await until(() => any.pending.length === 1, 'a member of no known AgentConfig takes it');
    any.finish();
    await expect(remote).resolves.toMatchObject({ member: 'any' });
  });

  it('stops waiting when the caller aborts', async () => {
    const a = new FakeAgent('a', 1);
    const p = await start(ListSource.of(a));
    void p.dispatch(item('1'));
    const controller = new AbortController();
    const waiting = p.dispatch(item('2'), controller.signal);
    controller.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    a.finish();
    await until(() => inFlight(p).a === 0, 'a is idle');
  });

  it('sends an item that a member refused as busy to another member', async () => {
    const [a, b] = [new FakeAgent('a', 2), new FakeAgent('b', 2)];
    a.refuse = true;
    const p = await start(ListSource.of(a, b));
    const call = p.dispatch(item('1'));
    await until(() => b.pending.length === 1, 'b gets the item');
    b.finish();
    await expect(call).resolves.toMatchObject({ member: 'b', result: { agentId: 'b' } });
  });

  it('backs off and tries again while every healthy member refuses the item, until the caller aborts', async () => {
    const [a, b] = [new FakeAgent('a', 2), new FakeAgent('b', 2)];
    a.refuse = b.refuse = true;
    const p = await start(ListSource.of(a, b));
    const controller = new AbortController();
    const call = p.dispatch(item('1'), controller.signal);
    await until(() => a.refusals >= 2 && b.refusals >= 2, 'both members were asked again after the back-off');
    b.refuse = false;
    await until(() => b.pending.length === 1, 'b takes the item once it has room');
    b.finish();
    await expect(call).resolves.toMatchObject({ member: 'b' });

    const stuck = p.dispatch(item('2'), controller.signal);
    b.refuse = true;
    await until(() => b.refusals >= 3, 'b refuses again');
    controller.abort(new Error('deadline'));
    await expect(stuck).rejects.toThrow('deadline');
    expect(inFlight(p)).toEqual({ a: 0, b: 0 });
  });

  it('answers NoHealthyAgentsError (ORCHESTRATOR_UNAVAILABLE) when the pool is empty', async () => {
    const p = await start(new ListSource([], 2));
    const err = await p.dispatch(item('1')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoHealthyAgentsError);
    expect(err).toMatchObject({ code: 'ORCHESTRATOR_UNAVAILABLE' });
  });

  it('sends an item to another member when the first could not be connected to (the item was never sent)', async () => {
    const [a, b] = [new FakeAgent('a', 1), new FakeAgent('b', 1)];
    const p = await start(ListSource.of(a, b));
    const call = p.dispatch(item('1'));
    await until(() => a.pending.length + b.pending.length === 1, 'a member has the item');
    const [first, second] = a.pending.length ? [a, b] : [b, a];
    first.fail(new AgentCommunicationError('refused', first.id, 'connect'));
    await until(() => second.pending.length === 1, 'the other member gets the item');
    second.finish();
    await expect(call).resolves.toMatchObject({ member: second.id });
  });

  it('passes a communication error of an in-process member to the caller and keeps the member', async () => {
    const a = new FakeAgent('a', 1);
    const p = await start(ListSource.of(a));
    const call = p.dispatch(item('1'));
    await settle();
    a.fail(new AgentCommunicationError('broken', 'a', 'network'));
    await expect(call).rejects.toMatchObject({ code: 'AGENT_COMMUNICATION_ERROR' });
    expect(p.members()[0]).toMatchObject({ health: 'healthy', inFlight: 0 });
  });
});

describe('AgentPool members and status', () => {
  it('reports desired, available, healthy and unhealthy, and tells the reporter on change', async () => {
    const reports: PoolStatus[] = [];
    const source = new ListSource([{ key: 'a', kind: 'in-process', agent: new FakeAgent('a') }], 3);
    const p = await start(source, { report: (s) => reports.push(s) });
    expect(p.status()).toEqual({ desired: 3, available: 1, healthy: 1, unhealthy: 0 });

    source.change([{ key: 'b', kind: 'in-process', agent: new FakeAgent('b') }], []);
    expect(p.status()).toEqual({ desired: 3, available: 2, healthy: 2, unhealthy: 0 });
    await until(() => reports.length === 2, 'two reports');
    expect(reports.at(-1)).toEqual({ desired: 3, available: 2, healthy: 2, unhealthy: 0 });
  });

  it('shows each member with id, kind, health, in-flight count and last stats', async () => {
    const a = new FakeAgent('a', 4);
    const p = await start(
      new ListSource([{ key: 'default/travel#0', kind: 'in-process', agent: a, agentConfig: 'default/travel' }]),
    );
    void p.dispatch(item('1'));
    await settle();
    expect(p.members()).toEqual([
      {
        id: 'a',
        key: 'default/travel#0',
        kind: 'in-process',
        agentConfig: 'default/travel',
        health: 'healthy',
        draining: false,
        inFlight: 1,
        maxInFlight: 4,
        stats: { agentId: 'a', queriesProcessed: 0, inFlight: 1, maxInFlight: 4, cpuPercent: 0, memoryMb: 0 },
      },
    ]);
  });

  it('drains a removed member: no new items, closed once its item is finished', async () => {
    const [a, b] = [new FakeAgent('a', 2), new FakeAgent('b', 2)];
    const source = ListSource.of(a, b);
    const p = await start(source);
    const call = p.dispatch(item('1'));
    await settle();
    const holder = a.pending.length === 1 ? a : b;
    const other = holder === a ? b : a;

    source.change([], [holder.id], 1);
    expect(p.status()).toEqual({ desired: 1, available: 1, healthy: 1, unhealthy: 0 });
    void p.dispatch(item('2'));
    await settle();
    expect(other.pending.map((x) => x.item.query)).toEqual(['2']);
    expect(holder.closed).toBe(false);

    holder.finish();
    await call;
    await until(() => holder.closed, 'the removed member is closed');
    expect(p.members().map((m) => m.id)).toEqual([other.id]);
  });

  it('close rejects waiting items, lets running ones finish and closes every member', async () => {
    const a = new FakeAgent('a', 1);
    const source = ListSource.of(a);
    const p = await start(source);
    const running = p.dispatch(item('1'));
    const waiting = p.dispatch(item('2'));
    await settle();
    const closing = p.close();
    pool = undefined;
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    expect(a.closed).toBe(false);
    a.finish();
    await expect(running).resolves.toMatchObject({ result: { status: 'success' } });
    await closing;
    expect(a.closed).toBe(true);
    expect(source.closed).toBe(true);
  });
});

/** A member with a probe whose answer the test sets. */
class ProbedFake extends FakeAgent {
  up = true;
  async probe(): Promise<void> {
    if (!this.up) throw new Error(`${this.id} is down`);
  }
}

describe('AgentPool health per AgentConfig', () => {
  it('tells onHealth listeners when two AgentConfigs swap a healthy member, though the totals stay', async () => {
    const [a, b] = [new ProbedFake('a'), new ProbedFake('b')];
    b.up = false;
    const p = await start(
      new ListSource([
        { key: 'a', kind: 'remote', agent: a, agentConfig: 'default/alpha' },
        { key: 'b', kind: 'remote', agent: b, agentConfig: 'default/beta' },
      ]),
    );
    expect(Object.fromEntries(p.healthyByAgentConfig())).toEqual({ 'default/alpha': 1 });
    let health = 0;
    let status = 0;
    p.onHealth(() => health++);
    p.onStatus(() => status++);
    await p.probeNow();
    const before = health;

    [a.up, b.up] = [false, true];
    await p.probeNow();
    expect(Object.fromEntries(p.healthyByAgentConfig())).toEqual({ 'default/beta': 1 });
    expect(p.status()).toMatchObject({ healthy: 1, unhealthy: 1 });
    expect(health).toBe(before + 1);
    expect(status).toBe(0);
  });
});
