/**
 * The Rego modules of `steward policy test`: `.rego` files as they are, and the `spec.rego` of every Policy
 * document of the manifests, read as start-up reads them (parseManifestFile, policyModule). A Policy's module
 * reports positions in its manifest: row 1 of a `rego: |` block is the line after `rego: |`, and its columns move
 * right by the block's indentation.
 */
import { readFile } from 'node:fs/promises';
import { isScalar, Scalar } from 'yaml';
import type { PolicyResource } from '../../api/index.js';
import type { ModuleSource } from '../../rego/index.js';
import { policyModule } from '../../runtime/policy/module.js';
import { parseManifestFile } from '../../runtime/source/index.js';
import { parseYamlDocuments } from '../../runtime/source/yaml.js';
import { PolicyCliError, type SourcePlace } from './errors.js';

/** Where a manifest's module sits in its file: rows and columns to add (both 0 when unknown). */
interface Shift {
  file: string;
  rows: number;
  cols: number;
}

export interface PolicyModules {
  modules: ModuleSource[];
  /** An engine position (module name, row, col) as a place in the file the person wrote. */
  place(p: SourcePlace): SourcePlace;
  /** The text of a file read (for quoting a line under an error). */
  text(file: string): string | undefined;
  /** Error texts naming a manifest's module (`pii.yaml#builtin-pii.rego:12: …`) rewritten to its manifest's line. */
  placeText(message: string): string;
}

export interface ReadModulesOptions {
  /** Parse `.rego` files as Rego v0 (a Policy's `spec.regoVersion` decides for its own module). @default false */
  v0Compatible?: boolean;
}

export async function readModules(
  regoFiles: readonly string[],
  manifestFiles: readonly string[],
  options: ReadModulesOptions = {},
): Promise<PolicyModules> {
  const modules: ModuleSource[] = [];
  const texts = new Map<string, string>();
  const shifts = new Map<string, Shift>();
  for (const file of regoFiles) {
    const source = await readFile(file, 'utf8');
    texts.set(file, source);
    modules.push({ name: file, source, regoVersion: options.v0Compatible ? 'v0' : 'v1' });
  }
  for (const file of manifestFiles) {
    const text = await readFile(file, 'utf8');
    const found = manifestModules(file, text);
    if (found.length) texts.set(file, text);
    for (const { module, shift } of found) {
      modules.push(module);
      shifts.set(module.name, shift);
    }
  }
  const place = (p: SourcePlace): SourcePlace => {
    const s = shifts.get(p.file);
    return s ? { file: s.file, row: p.row + s.rows, col: p.col + s.cols } : p;
  };
  const placeText = (message: string): string => {
    let out = message;
    for (const name of shifts.keys()) {
      const at = new RegExp(`${escapeRegExp(name)}:(\\d+)(?::(\\d+))?`, 'g');
      out = out.replace(at, (_, row: string, col: string | undefined) => {
        const p = place({ file: name, row: Number(row), col: Number(col ?? 1) });
        return col === undefined ? `${p.file}:${p.row}` : `${p.file}:${p.row}:${p.col}`;
      });
    }
    return out;
  };
  return { modules, place, text: (file) => texts.get(file), placeText };
}

/** The modules of a manifest file's Policy documents; a Policy document that does not validate is a PolicyCliError. */
function manifestModules(file: string, text: string): { module: ModuleSource; shift: Shift }[] {
  const parsed = parseManifestFile(file, text);
  const policies = parsed.resources.filter((r) => r.resource.kind === 'Policy');
  if (parsed.issues.length) {
    const kinds = documentKinds(text);
    const broken = parsed.issues.filter((i) => kinds[i.documentIndex] === 'Policy');
    if (broken.length)
      throw new PolicyCliError(broken.map((i) => `${file}#${i.documentIndex} ${i.field}: ${i.message}`).join('\n'));
  }
  if (!policies.length) return [];
  const docs = parseYamlDocuments(text).documents;
  const out: { module: ModuleSource; shift: Shift }[] = [];
  for (const { resource, documentIndex } of policies) {
    const m = policyModule(resource as PolicyResource);
    if (m === undefined) continue; // wasm and redact policies have no Rego
    const name = `${file}#${m.name}`;
    const node = docs[documentIndex]?.getIn(['spec', 'rego'], true);
    const shift = isScalar(node) ? blockShift(file, text, node, m.source) : undefined;
    out.push({
      module: { name, source: m.source, regoVersion: m.regoVersion },
      shift: shift ?? { file: name, rows: 0, cols: 0 },
    });
  }
  return out;
}

/**
 * The shift of a literal block scalar (`rego: |`, `|-`, `|+`): its content starts on the line after the header, and
 * every line is indented by as many columns as the first non-empty line has more than its own text. Other styles
 * (quoted, folded) have no such mapping: their positions stay in the module.
 */
function blockShift(file: string, text: string, node: Scalar, source: string): Shift | undefined {
  if (node.type !== Scalar.BLOCK_LITERAL || !node.range || node.value !== source) return undefined;
  const lines = text.split('\n');
  const headerRow = text.slice(0, node.range[0]).split('\n').length; // 1-based row of `|`
  const regoLines = source.split('\n');
  const first = regoLines.findIndex((l) => l.trim() !== '');
  if (first < 0) return undefined;
  const inFile = lines[headerRow + first];
  if (inFile === undefined) return undefined;
  const indent = leading(inFile) - leading(regoLines[first]!);
  return indent >= 0 ? { file, rows: headerRow, cols: indent } : undefined;
}

const leading = (line: string) => line.length - line.trimStart().length;

/** The `kind` of each document of a YAML text (undefined where there is none), for telling Policies apart. */
function documentKinds(text: string): (string | undefined)[] {
  try {
    return parseYamlDocuments(text).documents.map((d) => {
      const kind: unknown = d.get('kind');
      return typeof kind === 'string' ? kind : undefined;
    });
  } catch {
    return [];
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
