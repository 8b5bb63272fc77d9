/**
 * Digests of MCP tool definitions (docs/connectors.md, "Pinned tool definitions"): a tool's digest is SHA-256 over
 * the RFC 8785 canonical `{name, description, inputSchema}`; a list's digest is SHA-256 over the canonical array of
 * its tools' digests, sorted. Both are written `sha256:<hex>`, the form `steward.dev/approve-tools` takes.
 */
import { canonicalDigest, canonicalJson } from '../../audit/canonical.js';

/** What a tool's digest covers: what a model reads of the tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const hex = (value: unknown) => `sha256:${canonicalDigest(value).toString('hex')}`;

/** The definition's digest. Throws a CanonicalJsonError for a schema with no canonical JSON (a non-finite number). */
export function toolDigest(tool: ToolDefinition): string {
  return hex({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
}

/** The digest of a list of tools, from their digests (order does not count). */
export function listDigest(toolDigests: Iterable<string>): string {
  return hex([...toolDigests].sort());
}

/** How long one side of a changed text may be in a diff; the rest is elided. */
const SIDE_CHARS = 240;
/** How long one line of a schema diff may be. */
const SCHEMA_CHARS = 400;

/** One line per changed field, readable in a condition message: `description: "a" → "b"`. */
export function definitionDiff(before: ToolDefinition, after: ToolDefinition): string[] {
  const lines: string[] = [];
  if (before.description !== after.description)
    lines.push(`description: ${quote(...around(before.description, after.description))}`);
  // NB: canonical: a schema read back from the store (jsonb) has its keys in another order.
  const a = canonicalJson(before.inputSchema);
  const b = canonicalJson(after.inputSchema);
  if (a !== b) lines.push(`inputSchema: ${clip(a, SCHEMA_CHARS)} → ${clip(b, SCHEMA_CHARS)}`);
  return lines;
}

/** The two texts cut to the part that differs, with the common head and tail elided. */
function around(a: string, b: string): [string, string] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // keep a few characters of context on each side, so that a one-word change reads in place
  const from = Math.max(0, head - 24);
  const cut = (s: string) => {
    const to = Math.min(s.length, s.length - tail + 24);
    return `${from > 0 ? '…' : ''}${s.slice(from, to)}${to < s.length ? '…' : ''}`;
  };
  return [cut(a), cut(b)];
}

function quote(a: string, b: string): string {
  return `${JSON.stringify(clip(a, SIDE_CHARS))} → ${JSON.stringify(clip(b, SIDE_CHARS))}`;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
