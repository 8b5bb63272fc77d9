import type { ConnectorResource } from '../../api/resources.js';
import { ConnectorError } from './errors.js';

/** Finds a Connector's connection URL: a Secret key in a cluster, an environment variable standalone. */
export type ConnectionResolver = (connector: ConnectorResource) => Promise<string>;

/** Reads one key of a Secret (the cluster wiring passes a Kubernetes client call). */
export type SecretReader = (namespace: string, name: string, key: string) => Promise<string | undefined>;

export interface ResolverSources {
  /** The environment, read once at start-up (modules do not read process.env themselves). */
  env?: Readonly<Record<string, string | undefined>>;
  secrets?: SecretReader;
}

/**
 * `spec.connection.secretRef` through `secrets`, else `spec.connection.fromEnv` through `env`. A pglite connector has
 * no connection (its database is embedded): its URL is empty.
 */
export function connectionResolver(sources: ResolverSources): ConnectionResolver {
  return async (c) => {
    if (c.spec.type === 'pglite') return '';
    const { secretRef, fromEnv } = c.spec.connection;
    const name = c.metadata.name;
    const missing = (what: string) => new ConnectorError('CONNECTOR_MISCONFIGURED', what, { connector: name });
    if (secretRef) {
      if (!sources.secrets) throw missing('spec.connection.secretRef needs a cluster; use fromEnv standalone');
      const value = await sources.secrets(c.metadata.namespace ?? 'default', secretRef.name, secretRef.key);
      if (!value) throw missing(`Secret ${secretRef.name} has no key ${secretRef.key}`);
      return value;
    }
    if (fromEnv) {
      const value = sources.env?.[fromEnv];
      if (!value) throw missing(`environment variable ${fromEnv} is not set`);
      return value;
    }
    throw missing('spec.connection names neither secretRef nor fromEnv');
  };
}

/** Standalone: `spec.connection.fromEnv` only. */
export const envResolver = (env: Readonly<Record<string, string | undefined>>): ConnectionResolver =>
  connectionResolver({ env });
