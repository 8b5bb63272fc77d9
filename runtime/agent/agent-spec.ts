/**
 * Where `steward agent` reads its AgentConfig: the manifest folders, or the API server with
 * STEWARD_SOURCE=kubernetes. Read once at start: the operator rolls the pods when the spec changes.
 */
import { validateManifest, type AgentConfigResource, type AgentConfigSpec } from '../../api/index.js';
import { connectKube } from '../cluster/connect.js';
import { Resources } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import { StartupError } from '../../platform/startup-error.js';
import type { AgentRuntimeConfig } from '../config.js';
import { checkManifestFolders, DEFAULT_NAMESPACE, FolderSource } from '../source/index.js';

/** STEWARD_AGENT_NAMESPACE, else STEWARD_NAMESPACE. */
export function agentNamespace(config: AgentRuntimeConfig): string {
  return config.STEWARD_AGENT_NAMESPACE ?? config.STEWARD_NAMESPACE;
}

/** The AgentConfig's spec; a missing or invalid one is a setting to fix (StartupError, exit 2). */
export function readAgentSpec(config: AgentRuntimeConfig, log: Logger): Promise<AgentConfigSpec> {
  return config.STEWARD_SOURCE === 'kubernetes' ? readFromCluster(config) : readFromFolders(config, log);
}

async function readFromCluster(config: AgentRuntimeConfig): Promise<AgentConfigSpec> {
  const namespace = agentNamespace(config);
  const name = config.STEWARD_AGENT_NAME;
  const client = await connectKube(config, 'agent');
  try {
    let found: unknown;
    try {
      found = await client.tryGet(Resources.AgentConfig, namespace, name);
    } catch (err) {
      throw new StartupError(
        'STEWARD_KUBECONFIG',
        `STEWARD_SOURCE=kubernetes: AgentConfig ${namespace}/${name} cannot be read (${(err as Error).message})`,
        { cause: err },
      );
    }
    if (!found) {
      throw new StartupError(
        'STEWARD_AGENT_NAME',
        `STEWARD_AGENT_NAME: no AgentConfig ${namespace}/${name} in the cluster (STEWARD_SOURCE=kubernetes)`,
      );
    }
    const checked = validateManifest(found);
    if (!checked.valid || checked.resource?.kind !== 'AgentConfig') {
      const problems = checked.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      throw new StartupError(
        'STEWARD_AGENT_NAME',
        `STEWARD_AGENT_NAME: AgentConfig ${namespace}/${name} is not valid (${problems})`,
      );
    }
    return (checked.resource as AgentConfigResource).spec;
  } finally {
    await client.close();
  }
}

async function readFromFolders(config: AgentRuntimeConfig, log: Logger): Promise<AgentConfigSpec> {
  const namespace = agentNamespace(config);
  await checkManifestFolders(config.STEWARD_MANIFESTS);
  const source = new FolderSource({
    dirs: config.STEWARD_MANIFESTS,
    watch: false,
    log: log.child({ component: 'source' }),
  });
  try {
    await source.ready();
    const found = source.get('AgentConfig', config.STEWARD_AGENT_NAME, namespace);
    if (!found) {
      const known = source
        .list('AgentConfig')
        .map((a) => `${a.metadata.namespace ?? DEFAULT_NAMESPACE}/${a.metadata.name}`);
      throw new StartupError(
        'STEWARD_AGENT_NAME',
        `STEWARD_AGENT_NAME: no AgentConfig ${namespace}/${config.STEWARD_AGENT_NAME} in STEWARD_MANIFESTS (${config.STEWARD_MANIFESTS.join(', ')}); ` +
          `found: ${known.length ? known.sort().join(', ') : 'none'}`,
      );
    }
    return found.spec;
  } finally {
    await source.close();
  }
}
