/**
 * Where `steward agent` reads its AgentConfig: the manifest folders, or the API server with
 * STEWARD_SOURCE=kubernetes. Read once at start: the operator rolls the pods when the spec changes.
 */
import { validateManifest, type AgentConfigResource, type AgentConfigSpec } from '../../api/index.js';
import { connectKube } from '../cluster/connect.js';
import { Resources } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import { StartupError } from '../../platform/startup-error.js';
import type { AgentSettings } from '../settings.js';
import { checkManifestFolders, DEFAULT_NAMESPACE, FolderSource } from '../source/index.js';

type SpecSettings = Pick<AgentSettings, 'agent' | 'cluster' | 'manifests'>;

/** The AgentConfig's spec; a missing or invalid one is a setting to fix (StartupError, exit 2). */
export function readAgentSpec(config: SpecSettings, log: Logger): Promise<AgentConfigSpec> {
  return config.cluster.source === 'kubernetes' ? readFromCluster(config) : readFromFolders(config, log);
}

async function readFromCluster(config: SpecSettings): Promise<AgentConfigSpec> {
  const { name, namespace } = config.agent;
  const client = await connectKube(config.cluster, 'agent');
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

async function readFromFolders(config: SpecSettings, log: Logger): Promise<AgentConfigSpec> {
  const { name, namespace } = config.agent;
  const folders = config.manifests.folders;
  await checkManifestFolders(folders);
  const source = new FolderSource({
    dirs: folders,
    watch: false,
    log: log.child({ component: 'source' }),
  });
  try {
    await source.ready();
    const found = source.get('AgentConfig', name, namespace);
    if (!found) {
      const known = source
        .list('AgentConfig')
        .map((a) => `${a.metadata.namespace ?? DEFAULT_NAMESPACE}/${a.metadata.name}`);
      throw new StartupError(
        'STEWARD_AGENT_NAME',
        `STEWARD_AGENT_NAME: no AgentConfig ${namespace}/${name} in STEWARD_MANIFESTS (${folders.join(', ')}); ` +
          `found: ${known.length ? known.sort().join(', ') : 'none'}`,
      );
    }
    return found.spec;
  } finally {
    await source.close();
  }
}
