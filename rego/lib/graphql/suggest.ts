/**
 * "Did you mean …?" suggestions for GraphQL validation messages (gqlparser's messaging.go, itself
 * graphql-js's suggestionList): options within an edit distance of 40% of the input, closest first.
 */

function levenshtein(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = cur;
  }
  return prev[n]!;
}

/** A case change alone counts as one edit. */
function lexicalDistance(a: string, b: string): number {
  if (a === b) return 0;
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la === lb) return 1;
  return levenshtein(la, lb);
}

export function suggestionList(input: string, options: readonly string[]): string[] {
  const threshold = Math.max(Math.floor(input.length * 0.4) + 1, 1);
  const scored: [string, number][] = [];
  for (const o of options) {
    const d = lexicalDistance(input, o);
    if (d <= threshold) scored.push([o, d]);
  }
  // Stable sort by distance, as Go's sort.SliceStable-equivalent insertion order.
  return scored.sort((x, y) => x[1] - y[1]).map(([o]) => o);
}

/** "a", "a or b", "a, b, or c" (at most five items). */
export function orList(items: readonly string[]): string {
  const xs = items.slice(0, 5);
  if (xs.length <= 2) return xs.join(' or ');
  return `${xs.slice(0, -1).join(', ')}, or ${xs[xs.length - 1]}`;
}

export function quotedOrList(items: readonly string[]): string {
  return orList(items.map((x) => `"${x}"`));
}

/** Appends ` Did you mean "x"?` when some option is close to typed. */
export function suggest(
  message: string,
  prefix: string,
  typed: string,
  options: readonly string[],
  quoted = true,
): string {
  const s = suggestionList(typed, options);
  if (s.length === 0) return message;
  return `${message} ${prefix} ${quoted ? quotedOrList(s) : orList(s)}?`;
}
