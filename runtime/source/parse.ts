import { validateManifest, type AnyResource } from '../../api/index.js';
import { DEFAULT_NAMESPACE, type ConfigMapData, type LoadIssue } from './types.js';
import { documentValue, parseYamlDocuments, YamlLimitError, type ParsedYaml } from './yaml.js';

export interface ParsedFile {
  resources: { resource: AnyResource; documentIndex: number; warnings: LoadIssue[] }[];
  issues: LoadIssue[];
  /** Documents of other APIs (Secrets, ConfigMaps, ...) that were left alone. */
  foreign: ForeignDocument[];
  /**
   * The `v1 ConfigMap` documents among them, read for the wasm bundles of `Policy.spec.wasm.configMapRef` (also in
   * `foreign`: they are not Steward documents).
   */
  configMaps: { configMap: Omit<ConfigMapData, 'version'>; documentIndex: number }[];
}

/** A document whose apiVersion is not Steward's (nor the reference product's). */
export interface ForeignDocument {
  documentIndex: number;
  apiVersion: string;
  kind?: string;
}

/**
 * Parses and validates every document of one YAML or JSON file. Invalid documents become issues with the
 * file, document index and field; valid ones come back normalized, with their namespace defaulted.
 */
export function parseManifestFile(file: string, text: string): ParsedFile {
  const out: ParsedFile = { resources: [], issues: [], foreign: [], configMaps: [] };
  let parsed: ParsedYaml;
  try {
    // NB: limits (size, nodes, nesting, aliases) and a linear duplicate-key check: see yaml.ts.
    parsed = parseYamlDocuments(text);
  } catch (err) {
    out.issues.push({ file, documentIndex: 0, field: '(file)', message: (err as Error).message });
    return out;
  }
  parsed.documents.forEach((doc, documentIndex) => {
    if (doc.errors.length) {
      const e = doc.errors[0]!;
      const pos = e.linePos?.[0];
      out.issues.push({
        file,
        documentIndex,
        field: '(yaml)',
        message: `${pos ? `line ${pos.line}, column ${pos.col}: ` : ''}${e.message.split('\n')[0]}`,
      });
      return;
    }
    let value: unknown;
    try {
      value = documentValue(doc, parsed.lineOf);
    } catch (err) {
      if (!(err instanceof YamlLimitError) && !(err instanceof ReferenceError)) throw err;
      out.issues.push({ file, documentIndex, field: '(yaml)', message: err.message });
      return;
    }
    if (value === null || value === undefined) return; // an empty document between separators
    // NB: Secrets and other Kubernetes kinds may share a folder with ours; they are not our documents.
    const foreign = foreignDocument(value);
    if (foreign) {
      out.foreign.push({ documentIndex, ...foreign });
      if (foreign.apiVersion === 'v1' && foreign.kind === 'ConfigMap') {
        const read = configMapOf(value as Record<string, unknown>);
        if ('issue' in read) out.issues.push({ file, documentIndex, ...read.issue });
        else out.configMaps.push({ configMap: read, documentIndex });
      }
      return;
    }
    const result = validateManifest(value);
    const warnings = result.warnings.map((w) => ({ file, documentIndex, ...w }));
    if (!result.valid || !result.resource) {
      for (const e of result.errors) out.issues.push({ file, documentIndex, ...e });
      return;
    }
    // NB: a reference product's domain file (axonflow.io/v1 with spec.agents) stands for several AgentConfigs.
    // The document's warnings go with its first resource, so that they are reported once.
    (result.resources ?? [result.resource]).forEach((resource, i) => {
      resource.metadata.namespace ??= DEFAULT_NAMESPACE;
      out.resources.push({ resource, documentIndex, warnings: i === 0 ? warnings : [] });
    });
  });
  return out;
}

const OURS = /^(steward\.dev|axonflow\.io)\//;

function foreignDocument(value: unknown): { apiVersion: string; kind?: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || OURS.test(apiVersion)) return undefined;
  return typeof kind === 'string' ? { apiVersion, kind } : { apiVersion };
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A ConfigMap document's name, namespace and string maps, or the first field that is not what Kubernetes takes. */
function configMapOf(
  doc: Record<string, unknown>,
): Omit<ConfigMapData, 'version'> | { issue: { field: string; message: string } } {
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  if (typeof metadata.name !== 'string' || !NAME.test(metadata.name))
    return { issue: { field: 'metadata.name', message: 'a ConfigMap needs a DNS subdomain name' } };
  const namespace = metadata.namespace ?? DEFAULT_NAMESPACE;
  if (typeof namespace !== 'string' || !NAME.test(namespace))
    return { issue: { field: 'metadata.namespace', message: 'not a namespace name' } };
  const maps: Record<string, Record<string, string>> = {};
  for (const field of ['data', 'binaryData'] as const) {
    const map = doc[field] ?? {};
    if (typeof map !== 'object' || map === null || Array.isArray(map))
      return { issue: { field, message: 'must be a map of strings' } };
    for (const [key, value] of Object.entries(map)) {
      if (typeof value !== 'string') return { issue: { field: `${field}.${key}`, message: 'must be a string' } };
      if (
        field === 'binaryData' &&
        (value.replace(/\s+/g, '').length % 4 !== 0 || !BASE64.test(value.replace(/\s+/g, '')))
      )
        return { issue: { field: `${field}.${key}`, message: 'must be base64' } };
    }
    maps[field] = map as Record<string, string>;
  }
  return { namespace, name: metadata.name, data: maps.data!, binaryData: maps.binaryData! };
}
