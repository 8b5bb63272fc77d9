import { describe, expect, it } from 'vitest';
import { connectorDoc } from './test/fixtures.js';
import { connectionResolver } from './resolve.js';

describe('connectionResolver', () => {
  const secrets = async (ns: string, name: string, key: string) =>
    ns === 'default' && name === 'db' && key === 'url' ? 'postgresql://u:p@h/db' : undefined;

  it('reads secretRef through the secret reader and fromEnv through the environment', async () => {
    const resolve = connectionResolver({ env: { DB_URL: 'postgresql://x@h/db' }, secrets });
    await expect(resolve(connectorDoc('a', 'postgres', 'DB_URL'))).resolves.toBe('postgresql://x@h/db');
    const bySecret = {
      ...connectorDoc('b', 'postgres', 'UNUSED'),
      spec: { ...connectorDoc('b', 'postgres', 'X').spec, connection: { secretRef: { name: 'db', key: 'url' } } },
    };
    await expect(resolve(bySecret)).resolves.toBe('postgresql://u:p@h/db');
  });

  it('names what is missing without any value', async () => {
    const resolve = connectionResolver({ env: {} });
    await expect(resolve(connectorDoc('a', 'postgres', 'DB_URL'))).rejects.toMatchObject({
      code: 'CONNECTOR_MISCONFIGURED',
      message: 'environment variable DB_URL is not set',
    });
    const bySecret = {
      ...connectorDoc('b', 'postgres', 'X'),
      spec: { ...connectorDoc('b', 'postgres', 'X').spec, connection: { secretRef: { name: 'db', key: 'nokey' } } },
    };
    await expect(connectionResolver({ secrets })(bySecret)).rejects.toMatchObject({
      message: 'Secret db has no key nokey',
    });
  });

  it('resolves a pglite connector, which has no connection, to no URL', async () => {
    const embedded = {
      ...connectorDoc('demo', 'pglite', 'X'),
      spec: { ...connectorDoc('demo', 'pglite', 'X').spec, connection: {}, seed: 'SELECT 1' },
    };
    await expect(connectionResolver({ env: {} })(embedded)).resolves.toBe('');
  });
});
