import { validateManifest, type AnyResource } from '../../api/index.js';
import { DEFAULT_NAMESPACE, type LoadIssue } from './types.js';
import { documentValue, parseYamlDocuments, YamlLimitError, type ParsedYaml } from './yaml.js';

export interface ParsedFile {
  resources: { resource: AnyResource; documentIndex: number; warnings: LoadIssue[] }[];
  issues: LoadIssue[];
  /** Documents of other APIs (Secrets, ConfigMaps, ...) that were left alone. */
  foreign: ForeignDocument[];
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
  const out: ParsedFile = { resources: [], issues: [], foreign: [] };
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
