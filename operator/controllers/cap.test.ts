import { describe, expect, it } from 'vitest';
import { capReplicas, type CapRequest } from './cap.js';

const install = (
  gateway: number,
  orchestrator: number,
  agents: Record<string, number> = {},
  name = 'prod',
): CapRequest => ({
  orchestrators: [{ name, gateway, orchestrator }],
  agents: Object.entries(agents).map(([n, replicas]) => ({ name: n, replicas })),
});

describe('capReplicas', () => {
  it.each([
    {
      name: 'grants everything without a cap',
      max: undefined,
      req: install(3, 2, { travel: 4 }),
      gateway: 3,
      orch: 2,
      agents: { travel: 4 },
      limited: false,
    },
    {
      name: 'grants everything when the request fits exactly',
      max: 9,
      req: install(3, 2, { travel: 4 }),
      gateway: 3,
      orch: 2,
      agents: { travel: 4 },
      limited: false,
    },
    {
      name: 'gives the gateway and the orchestrator one pod each before any agent',
      max: 2,
      req: install(3, 2, { travel: 4 }),
      gateway: 1,
      orch: 1,
      agents: { travel: 0 },
      limited: true,
    },
    {
      name: 'gives every agent one pod, in name order, before topping up the servers',
      max: 4,
      req: install(3, 2, { travel: 4, finance: 2, health: 1 }),
      gateway: 1,
      orch: 1,
      agents: { finance: 1, health: 1, travel: 0 },
      limited: true,
    },
    {
      name: 'tops up the gateway before the orchestrator, then the agents in name order',
      max: 8,
      req: install(3, 2, { travel: 4, finance: 2 }),
      gateway: 3,
      orch: 2,
      agents: { finance: 2, travel: 1 },
      limited: true,
    },
    {
      name: 'gives nothing to a component that asks for zero',
      max: 5,
      req: install(0, 2, { travel: 0 }),
      gateway: 0,
      orch: 2,
      agents: { travel: 0 },
      limited: false,
    },
    {
      name: 'grants nothing under a cap of zero',
      max: 0,
      req: install(1, 1, { travel: 1 }),
      gateway: 0,
      orch: 0,
      agents: { travel: 0 },
      limited: true,
    },
  ])('$name', ({ max, req, gateway, orch, agents, limited }) => {
    const a = capReplicas(max, req);
    expect(a.orchestrators.prod).toEqual({ gateway, orchestrator: orch });
    expect(a.agents).toEqual(agents);
    expect(a.limited).toBe(limited);
    expect(a.granted).toBeLessThanOrEqual(max ?? Infinity);
  });

  it('serves several Orchestrators under one License in name order', () => {
    const a = capReplicas(3, {
      orchestrators: [
        { name: 'b', gateway: 2, orchestrator: 2 },
        { name: 'a', gateway: 2, orchestrator: 2 },
      ],
      agents: [],
    });
    expect(a.orchestrators).toEqual({ a: { gateway: 1, orchestrator: 1 }, b: { gateway: 1, orchestrator: 0 } });
  });

  it('does not depend on the order of the request', () => {
    const req = install(3, 3, { c: 2, a: 2, b: 2 });
    const reversed = { ...req, agents: [...req.agents].reverse() };
    expect(capReplicas(7, reversed)).toEqual(capReplicas(7, req));
  });
});
