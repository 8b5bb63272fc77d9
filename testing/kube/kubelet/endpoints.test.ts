import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { endpointsFor, servicePort } from './endpoints.js';
import { entrypointFor, imageName, STEWARD_IMAGE } from './images.js';
import { podPhase } from './pod-status.js';

const svc: JsonObject = {
  metadata: { name: 'web', namespace: 'd' },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
};
const pod = (name: string, ip: string, ready: boolean): JsonObject => ({
  metadata: { name, namespace: 'd', labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }] },
  status: { podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('service endpoints', () => {
  it('takes the ready endpoints of the Service EndpointSlices', () => {
    const slice: JsonObject = {
      metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
      ports: [{ name: 'http', port: 8080 }],
      endpoints: [
        { addresses: ['127.77.0.2'], conditions: { ready: true } },
        { addresses: ['127.77.0.3'], conditions: { ready: false } },
      ],
    };
    expect(endpointsFor(svc, servicePort(svc, '80')!, [slice], [])).toEqual([
      { ip: '127.77.0.2', port: 8080, pod: undefined },
    ]);
  });

  it('computes endpoints from ready selected pods (named target port) when there is no slice', () => {
    expect(
      endpointsFor(svc, servicePort(svc, 'http')!, [], [pod('a', '127.77.0.2', true), pod('b', '127.77.0.3', false)]),
    ).toEqual([{ ip: '127.77.0.2', port: 8080, pod: 'a' }]);
  });

  it('finds a Service port by name, number, or the first one', () => {
    expect(servicePort(svc, '')).toMatchObject({ port: 80 });
    expect(servicePort(svc, 'http')).toMatchObject({ port: 80 });
    expect(servicePort(svc, '81')).toBeUndefined();
  });
});

describe('images and phases', () => {
  it('maps the Steward image with any tag, and extra images with or without a tag', () => {
    expect(imageName('ghcr.io/steward-dev/steward:dev')).toBe(STEWARD_IMAGE);
    expect(imageName('localhost:5000/x@sha256:abc')).toBe('localhost:5000/x');
    expect(entrypointFor('ghcr.io/steward-dev/steward:1.2.3', {})?.[1]).toMatch(/bin\/steward\.mjs$/);
    expect(entrypointFor('app:2', { app: ['run'] })).toEqual(['run']);
    expect(entrypointFor('app:2', { 'app:1': ['one'] })).toBeUndefined();
  });

  it.each([
    {
      name: 'Pending before any container ran',
      views: [{ ready: false, ran: false, finished: false, exitCode: undefined }],
      want: 'Pending',
    },
    {
      name: 'Running while one runs',
      views: [{ ready: true, ran: true, finished: false, exitCode: undefined }],
      want: 'Running',
    },
    {
      name: 'Succeeded when all finished with 0',
      views: [{ ready: false, ran: true, finished: true, exitCode: 0 }],
      want: 'Succeeded',
    },
    {
      name: 'Failed when one finished otherwise',
      views: [
        { ready: false, ran: true, finished: true, exitCode: 0 },
        { ready: false, ran: true, finished: true, exitCode: 2 },
      ],
      want: 'Failed',
    },
  ])('phase: $name', ({ views, want }) => {
    expect(podPhase(views)).toBe(want);
  });
});
