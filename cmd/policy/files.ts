import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { PolicyCliError } from './errors.js';

/**
 * The suffix of a policy fixture suite (docs/policy-testing.md). NB: not `.yaml`: the gateway's folder source reads
 * every `.yaml`, `.yml` and `.json` file of its folders (recursively) as manifests, and `steward validate` checks
 * them; a suite beside the manifests it tests (config/policies/tests/) must be neither.
 */
export const SUITE_SUFFIX = '.policytest';

const MANIFEST_EXT = new Set(['.yaml', '.yml']);
/** Not walked into: dot folders (as the manifest loader skips them) and installed packages. */
const SKIPPED_DIRS = new Set(['node_modules']);

/** What `steward policy test` reads, by kind, each list in path order. */
export interface PolicyFiles {
  /** `*.rego`: policies and `*_test.rego` tests alike. */
  rego: string[];
  /** `*.yaml` / `*.yml`: their `kind: Policy` documents are modules; other documents are left alone. */
  manifests: string[];
  /** `*.policytest`: fixture suites. */
  suites: string[];
}

type Kind = keyof PolicyFiles;

function kindOf(file: string): Kind | undefined {
  if (file.endsWith(SUITE_SUFFIX)) return 'suites';
  const ext = extname(file);
  if (ext === '.rego') return 'rego';
  return MANIFEST_EXT.has(ext) ? 'manifests' : undefined;
}

/**
 * Files named, and the files of folders named (recursively; dot entries and node_modules skipped), as the paths
 * were given (`.` gives `policy.rego`, `config/policies` gives `config/policies/pii.yaml`). A path that does not
 * exist, or a file named that is none of the three kinds, is a PolicyCliError.
 */
export async function collectFiles(paths: readonly string[]): Promise<PolicyFiles> {
  const out: PolicyFiles = { rego: [], manifests: [], suites: [] };
  const seen = new Set<string>();
  const add = (kind: Kind, file: string) => {
    if (seen.has(resolve(file))) return;
    seen.add(resolve(file));
    out[kind].push(file);
  };
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(path);
        continue;
      }
      const kind = entry.isFile() ? kindOf(entry.name) : undefined;
      if (kind) add(kind, path);
    }
  };
  for (const p of paths) {
    const info = await stat(p).catch(() => undefined);
    if (!info) throw new PolicyCliError(`${p}: no such file or folder`);
    if (info.isDirectory()) {
      await walk(p);
      continue;
    }
    const kind = kindOf(p);
    if (!kind) throw new PolicyCliError(`${p}: not a .rego file, a Policy manifest (.yaml) or a ${SUITE_SUFFIX} suite`);
    add(kind, p);
  }
  return out;
}
