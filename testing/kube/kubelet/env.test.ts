import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { containerEnv, EnvError, expand, quantity, serviceEnv, type EnvSources } from './env.js';

const pod: JsonObject = {
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', labels: { app: 'web' } },
  spec: { nodeName: 'steward-node', serviceAccountName: 'default' },
  status: { podIP: '127.77.0.9', hostIP: '127.0.0.1' },
};
const sources: EnvSources = {
  secret: (n) =>
    n === 'creds'
      ? {
          metadata: { name: 'creds', namespace: 'shop' },
          data: { user: Buffer.from('ann').toString('base64'), pass: Buffer.from('pw').toString('base64') },
        }
      : undefined,
  configMap: (n) =>
    n === 'conf' ? { metadata: { name: 'conf', namespace: 'shop' }, data: { level: 'debug' } } : undefined,
  serviceVars: { DB_SERVICE_HOST: '127.96.0.20' },
};
const env = (container: JsonObject): Record<string, string> => containerEnv(pod, container, sources);

describe('container environment', () => {
  it.each([
    { name: 'expands defined variables', text: 'http://$(HOST):$(PORT)/', want: 'http://h:80/' },
    { name: 'keeps unknown references as written', text: '$(NOPE)-$(HOST)', want: '$(NOPE)-h' },
    { name: 'turns $$ into $', text: '$$(HOST) costs $$5', want: '$(HOST) costs $5' },
  ])('$name', ({ text, want }) => {
    expect(expand(text, { HOST: 'h', PORT: '80' })).toBe(want);
  });

  it('resolves value, secretKeyRef, configMapKeyRef, fieldRef and resourceFieldRef in order', () => {
    expect(
      env({
        resources: { limits: { memory: '256Mi' } },
        env: [
          { name: 'USER', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } },
          { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'conf', key: 'level' } } },
          { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
          { name: 'URL', value: 'http://$(USER)@$(IP)/$(DB_SERVICE_HOST)' },
        ],
      }),
    ).toMatchObject({
      USER: 'ann',
      LEVEL: 'debug',
      IP: '127.77.0.9',
      NS: 'shop',
      APP: 'web',
      MEM_MI: '256',
      URL: 'http://ann@127.77.0.9/127.96.0.20',
    });
  });

  it('takes envFrom with a prefix, and env wins over it', () => {
    expect(
      env({ envFrom: [{ secretRef: { name: 'creds' }, prefix: 'DB_' }], env: [{ name: 'DB_user', value: 'bob' }] }),
    ).toMatchObject({ DB_user: 'bob', DB_pass: 'pw' });
  });

  it('fails with CreateContainerConfigError for a missing Secret key, unless optional', () => {
    expect(() => env({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'nope' } } }] })).toThrow(
      EnvError,
    );
    expect(() => env({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'missing', key: 'k' } } }] })).toThrow(
      /configmap "missing" not found/,
    );
    expect(
      env({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'missing', key: 'k', optional: true } } }] }),
    ).not.toHaveProperty('X');
  });

  it('reads quantities', () => {
    expect(quantity('500m')).toBe(0.5);
    expect(quantity('2Gi')).toBe(2 * 1024 ** 3);
    expect(quantity('3')).toBe(3);
  });

  it('writes the Kubernetes service variables', () => {
    expect(
      serviceEnv([{ name: 'my-db', host: '127.96.0.20', ports: [{ name: 'sql', port: 5432, protocol: 'TCP' }] }]),
    ).toEqual({
      MY_DB_SERVICE_HOST: '127.96.0.20',
      MY_DB_SERVICE_PORT: '5432',
      MY_DB_SERVICE_PORT_SQL: '5432',
      MY_DB_PORT: 'tcp://127.96.0.20:5432',
      MY_DB_PORT_5432_TCP: 'tcp://127.96.0.20:5432',
      MY_DB_PORT_5432_TCP_PROTO: 'tcp',
      MY_DB_PORT_5432_TCP_PORT: '5432',
      MY_DB_PORT_5432_TCP_ADDR: '127.96.0.20',
    });
  });
});
