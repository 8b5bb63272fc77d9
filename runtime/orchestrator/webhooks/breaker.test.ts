import { describe, expect, it } from 'vitest';
import { CircuitBreakers } from './breaker.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms);
const make = () => new CircuitBreakers({ failureThreshold: 3, cooldownMs: 60_000, probeTimeoutMs: 10_000 });

describe('CircuitBreakers', () => {
  it('stays closed below the threshold, and an answer starts the count again', () => {
    const b = make();
    expect(b.failed('t', at(0))).toBe(false);
    expect(b.failed('t', at(1))).toBe(false);
    b.answered('t');
    expect(b.failed('t', at(2))).toBe(false);
    expect(b.failed('t', at(3))).toBe(false);
    expect(b.admit('t', at(4))).toEqual({ send: true });
    expect(b.state('t', at(4))).toBe('closed');
  });

  it('opens at the threshold of consecutive failures and admits nothing until the cool-down ends', () => {
    const b = make();
    b.failed('t', at(0));
    b.failed('t', at(0));
    expect(b.failed('t', at(100))).toBe(true);
    expect(b.state('t', at(100))).toBe('open');
    expect(b.admit('t', at(59_999 + 100))).toEqual({ send: false, until: at(60_100) });
  });

  it('lets exactly one probe through after the cool-down; the others wait for its timeout', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failed('t', at(0));
    expect(b.state('t', at(60_000))).toBe('half-open');
    expect(b.admit('t', at(60_000))).toEqual({ send: true });
    expect(b.admit('t', at(60_001))).toEqual({ send: false, until: at(70_000) });
    // A probe that never reports is given up on after its timeout: the next one goes.
    expect(b.admit('t', at(70_000))).toEqual({ send: true });
  });

  it('closes when the probe is answered', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failed('t', at(0));
    b.admit('t', at(60_000));
    expect(b.answered('t')).toBe(true);
    expect(b.state('t', at(60_001))).toBe('closed');
    expect(b.admit('t', at(60_001))).toEqual({ send: true });
  });

  it('opens again for a whole cool-down when the probe fails', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failed('t', at(0));
    b.admit('t', at(60_000));
    expect(b.failed('t', at(65_000))).toBe(true);
    expect(b.admit('t', at(65_001))).toEqual({ send: false, until: at(125_000) });
  });

  it('gives the probe slot to the next delivery when the probe says nothing of the target', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failed('t', at(0));
    b.admit('t', at(60_000));
    b.inconclusive('t');
    expect(b.admit('t', at(60_001))).toEqual({ send: true });
  });

  it('keeps targets apart', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failed('org-b https://x.example', at(0));
    expect(b.admit('org-a https://x.example', at(1))).toEqual({ send: true });
    expect(b.admit('org-b https://x.example', at(1))).toMatchObject({ send: false });
  });
});
