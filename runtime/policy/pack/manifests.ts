/**
 * Reads Policy manifests (the built-in pack in config/policies, or any folder of the same shape) with
 * the `yaml` package and validates each document against the api schema. Only `spec.rego` policies are
 * returned: the pack is Rego by design, and a wasm policy has no module to compile here; redact policies
 * (output-redaction.yaml) have no Rego and are skipped: the engine reads them from the declarative source.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { validateManifest, type FieldIssue, type PolicyResource } from '../../../api/index.js';
import type { PolicyModule } from '../../../rego/index.js';

/**
 * The folder that ships the built-in pack: `config/policies` at the package root, three folders up from this
 * module in a checkout (runtime/policy/pack) and four in a build (dist/runtime/policy/pack).
 */
export const BUILTIN_PACK_DIR = packDir();

function packDir(): string {
  const checkout = fileURLToPath(new URL('../../../config/policies/', import.meta.url));
  const build = fileURLToPath(new URL('../../../../config/policies/', import.meta.url));
  return existsSync(checkout) || !existsSync(build) ? checkout : build;
}

const MANIFEST_EXT = new Set(['.yaml', '.yml']);

/** NB: manifests are small; a file this large is a mistake, not a policy. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export type PolicyAction = 'block' | 'warn' | 'log';

/** One Rego policy as the evaluator needs it. */
export interface PackPolicy {
  /** `metadata.name`, the identity used for overrides and in `policies` lists. */
  name: string;
  type: string;
  priority: number;
  enabled: boolean;
  action: PolicyAction;
  regoVersion: 'v0' | 'v1';
  rego: string;
  /** Where it came from, for error messages. */
  source: string;
}

/** A manifest that cannot be used; `issues` name the fields in the api validator's shape. */
export class PolicyManifestError extends Error {
  readonly code = 'POLICY_MANIFEST_INVALID';
  constructor(
    message: string,
    readonly source: string,
    readonly issues: readonly FieldIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PolicyManifestError';
  }
}

/** Converts a validated Policy resource; throws for a wasm policy. */
export function fromResource(resource: PolicyResource, source: string): PackPolicy {
  const spec = resource.spec;
  if (spec.rego === undefined || spec.action === 'redact') {
    throw new PolicyManifestError(
      `policy ${resource.metadata.name}: only spec.rego policies can be loaded here`,
      source,
      [{ field: 'spec.rego', message: 'spec.rego is required for this loader' }],
    );
  }
  return {
    name: resource.metadata.name,
    type: spec.type,
    priority: spec.priority,
    enabled: spec.enabled,
    action: spec.action,
    regoVersion: spec.regoVersion,
    rego: spec.rego,
    source,
  };
}

/** Parses every document of one YAML text; non-Policy documents are a mistake in a policy folder. */
export function parsePolicyManifests(source: string, text: string): PackPolicy[] {
  const docs = parseAllDocuments(text, { prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: PackPolicy[] = [];
  list.forEach((doc, index) => {
    const where = `${source}#${index}`;
    const yamlError = doc.errors[0];
    if (yamlError) throw new PolicyManifestError(`${where}: ${yamlError.message.split('\n')[0]}`, where);
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    const kind = typeof value === 'object' && !Array.isArray(value) ? (value as { kind?: unknown }).kind : undefined;
    if (kind !== 'Policy') {
      throw new PolicyManifestError(`${where}: expected kind Policy, got ${JSON.stringify(kind)}`, where, [
        { field: 'kind', message: 'a policy folder holds Policy documents only' },
      ]);
    }
    const result = validateManifest(value);
    if (!result.valid || !result.resource) {
      const first = result.errors[0];
      throw new PolicyManifestError(
        `${where}: ${first ? `${first.field}: ${first.message}` : 'invalid manifest'}`,
        where,
        result.errors,
      );
    }
    const resource = result.resource as PolicyResource;
    // a redact policy has no Rego: the source gives it to the engine, which runs the redact detectors for it
    if (resource.spec.action === 'redact') return;
    out.push(fromResource(resource, where));
  });
  return out;
}

/** Loads every *.yaml / *.yml in `dir` (not recursive), in file-name order; names must be unique. */
export async function loadPolicyManifests(dir: string = BUILTIN_PACK_DIR): Promise<PackPolicy[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => MANIFEST_EXT.has(extname(f))).sort();
  } catch (err) {
    throw new PolicyManifestError(`cannot read policy folder ${dir}: ${(err as Error).message}`, dir, [], {
      cause: err,
    });
  }
  const out: PackPolicy[] = [];
  const seen = new Map<string, string>();
  for (const f of files) {
    const path = join(dir, f);
    const buf = await readFile(path);
    if (buf.byteLength > MAX_FILE_BYTES) {
      throw new PolicyManifestError(`${path}: ${buf.byteLength} bytes exceeds the ${MAX_FILE_BYTES}-byte limit`, path);
    }
    for (const p of parsePolicyManifests(path, buf.toString('utf8'))) {
      const earlier = seen.get(p.name);
      if (earlier)
        throw new PolicyManifestError(`${p.source}: policy ${p.name} is already defined in ${earlier}`, p.source);
      seen.set(p.name, p.source);
      out.push(p);
    }
  }
  return out;
}

/**
 * Applies user policies over the pack: a user policy with the same name replaces the built-in one
 * (that is how a pack policy is overridden or disabled); others are added.
 */
export function overlayPolicies(base: readonly PackPolicy[], overrides: readonly PackPolicy[]): PackPolicy[] {
  const byName = new Map(base.map((p) => [p.name, p]));
  for (const p of overrides) byName.set(p.name, p);
  return [...byName.values()];
}

/** The engine's view of the policies (rego/policyset.ts compiles and evaluates them as one set). */
export function toModules(policies: readonly PackPolicy[]): PolicyModule[] {
  return policies.map((p) => ({
    name: p.name,
    source: p.rego,
    regoVersion: p.regoVersion,
    priority: p.priority,
    action: p.action,
    enabled: p.enabled,
  }));
}
