import { KubeClient } from '../../platform/kube/index.js';
import { StartupError } from '../../platform/startup-error.js';
import { VERSION } from '../../platform/version.js';
import type { ClusterSettings } from '../settings.js';

/**
 * The runtimes' Kubernetes client: STEWARD_KUBECONFIG, else the pod's service account (under STEWARD_POD_ROOT
 * with the test kubelet). A configuration that cannot load is a setting to fix (StartupError, exit 2).
 */
export async function connectKube(
  config: Pick<ClusterSettings, 'kubeconfig' | 'podRoot'>,
  component: 'gateway' | 'orchestrator' | 'agent',
): Promise<KubeClient> {
  try {
    return await KubeClient.connect({
      kubeconfigFile: config.kubeconfig,
      podRoot: config.podRoot,
      userAgent: `steward-${component}/${VERSION}`,
    });
  } catch (err) {
    const where = config.kubeconfig ? `the kubeconfig ${config.kubeconfig}` : "the pod's service account";
    throw new StartupError(
      'STEWARD_KUBECONFIG',
      `STEWARD_SOURCE=kubernetes: the Kubernetes API cannot be configured from ${where}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
