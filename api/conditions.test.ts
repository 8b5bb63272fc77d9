import { describe, expect, it } from 'vitest';
import { conditionsEqual, setCondition } from './conditions.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');

describe('setCondition', () => {
  it('adds a condition with the observed generation and the time of the transition', () => {
    const list = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Reconciled' }, 3, t0);
    expect(list).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        message: '',
        lastTransitionTime: t0.toISOString(),
        observedGeneration: 3,
      },
    ]);
  });

  it('keeps lastTransitionTime when the status does not change', () => {
    const a = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Reconciled' }, 1, t0);
    const b = setCondition(a, { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'again' }, 2, t1);
    expect(b[0]).toMatchObject({ lastTransitionTime: t0.toISOString(), observedGeneration: 2, message: 'again' });
  });

  it('moves lastTransitionTime when the status changes', () => {
    const a = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Reconciled' }, 1, t0);
    const b = setCondition(a, { type: 'Ready', status: 'False', reason: 'ReplicasUnavailable' }, 1, t1);
    expect(b[0]!.lastTransitionTime).toBe(t1.toISOString());
  });

  it('leaves other conditions and the input list untouched', () => {
    const a = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Reconciled' }, 1, t0);
    const b = setCondition(a, { type: 'Degraded', status: 'False', reason: 'Reconciled' }, 1, t1);
    expect(a).toHaveLength(1);
    expect(b.map((c) => c.type)).toEqual(['Ready', 'Degraded']);
  });

  it('reports lists equal regardless of order, and unequal when a field differs', () => {
    const a = setCondition(
      setCondition(undefined, { type: 'A', status: 'True', reason: 'R' }, 1, t0),
      { type: 'B', status: 'True', reason: 'R' },
      1,
      t0,
    );
    expect(conditionsEqual(a, [...a].reverse())).toBe(true);
    expect(conditionsEqual(a, setCondition(a, { type: 'B', status: 'True', reason: 'R', message: 'x' }, 1, t0))).toBe(
      false,
    );
  });
});
