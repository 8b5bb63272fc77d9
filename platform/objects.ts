/** Object helpers every layer above api/ may use. */

type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * The fields that have a value: `definedFields({ a: 1, b: undefined })` is `{ a: 1 }`. Reads better than a chain of
 * `...(x ? { x } : {})` for optional fields that must be absent, not undefined (a row, an answer, options
 * whose defaults apply only when the key is missing).
 */
export function definedFields<T extends object>(fields: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as Defined<T>;
}
