import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Lexer, parseAllDocuments, type Document } from 'yaml';

/**
 * YAML that cannot be turned against us: manifest files and `POST /api/v1/agents/validate` bodies are parsed
 * with limits on size, nodes, nesting and aliases, and without the yaml package's duplicate-key check, which
 * compares every key with every other (30,000 keys took 30–45 s); duplicates are found here with a set instead.
 */
export interface YamlLimits {
  /** Longest text, in characters. @default 1 MiB */
  maxChars: number;
  /** Most nodes (scalars, flow collections, sequence entries, aliases) in the whole text. @default 20,000 */
  maxNodes: number;
  /** Deepest nesting of mappings and sequences. @default 64 */
  maxDepth: number;
  /** Most aliases in the whole text (and per document when resolved). @default 100 */
  maxAliases: number;
}

export const DEFAULT_YAML_LIMITS: Readonly<YamlLimits> = Object.freeze({
  maxChars: 1024 * 1024,
  maxNodes: 20_000,
  maxDepth: 64,
  maxAliases: 100,
});

/** A YAML text or document exceeds a limit, or repeats a key. */
export class YamlLimitError extends Error {
  constructor(
    message: string,
    /** 1-based line of the offending node, when known. */
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = 'YamlLimitError';
  }
}

export interface ParsedYaml {
  documents: Document.Parsed[];
  /** 1-based line of a source offset. */
  lineOf(offset: number): number;
}

// Lexer tokens that open a node: scalars (the lexer marks plain ones with \x1f), flow collections, aliases, and
// block sequence entries (`- - - x` nests without scalars). A mapping entry `k: v` is two nodes.
const NODE_START = new Set(['\x1f', '"', "'", '|', '>', '-', '{', '[', '*']);

/**
 * Parses every document of a YAML text. The whole text is first checked by the lexer alone (linear, no tree):
 * length, node count, flow nesting and aliases; a text over a limit is refused before anything is composed.
 * Syntax errors stay on each document's `errors`, as the yaml package reports them.
 */
export function parseYamlDocuments(text: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): ParsedYaml {
  if (text.length > limits.maxChars)
    throw new YamlLimitError(`the YAML text is longer than ${limits.maxChars} characters`);
  let nodes = 0;
  let aliases = 0;
  let flowDepth = 0;
  for (const token of new Lexer().lex(text)) {
    const first = token[0];
    if (first === undefined || !NODE_START.has(first)) {
      if (first === '}' || first === ']') flowDepth--;
      continue;
    }
    if (++nodes > limits.maxNodes) throw new YamlLimitError(`the YAML text has more than ${limits.maxNodes} nodes`);
    if (first === '*' && ++aliases > limits.maxAliases)
      throw new YamlLimitError(`the YAML text has more than ${limits.maxAliases} aliases`);
    if ((first === '{' || first === '[') && ++flowDepth > limits.maxDepth)
      throw new YamlLimitError(`the YAML text nests deeper than ${limits.maxDepth} levels`);
  }
  const lines = new LineCounter();
  // NB: uniqueKeys off: the package's check is quadratic; documentValue finds duplicates in linear time.
  const documents = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  const list = Array.isArray(documents) ? documents : [documents];
  return { documents: list as Document.Parsed[], lineOf: (offset) => lines.linePos(offset).line };
}

/**
 * The value of one parsed document (without errors): refuses a repeated key in a mapping and nesting deeper
 * than `maxDepth` (checked without recursion, before the yaml package's recursive conversion runs).
 */
export function documentValue(
  doc: Document.Parsed,
  lineOf: (offset: number) => number,
  limits: YamlLimits = DEFAULT_YAML_LIMITS,
): unknown {
  const stack: { node: unknown; depth: number }[] = [{ node: doc.contents, depth: 0 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (isMap(node) || isSeq(node)) {
      if (depth + 1 > limits.maxDepth)
        throw new YamlLimitError(
          `the YAML document nests deeper than ${limits.maxDepth} levels`,
          node.range ? lineOf(node.range[0]) : undefined,
        );
      const keys = isMap(node) ? new Set<string>() : undefined;
      for (const item of node.items as unknown[]) {
        if (isPair(item)) {
          if (keys && isScalar(item.key)) {
            const key = String(item.key.value);
            if (keys.has(key)) {
              const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
              throw new YamlLimitError(
                `the key "${shown}" appears twice in one mapping`,
                item.key.range ? lineOf(item.key.range[0]) : undefined,
              );
            }
            keys.add(key);
          }
          stack.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 });
        } else {
          stack.push({ node: item, depth: depth + 1 });
        }
      }
    } else if (isAlias(node) || isScalar(node) || node === null || node === undefined) {
      continue;
    }
  }
  return doc.toJS({ maxAliasCount: limits.maxAliases });
}
