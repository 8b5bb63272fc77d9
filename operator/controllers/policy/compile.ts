/**
 * A Policy's Rego compiled with the engine the gateway runs (rego/), its module named `<policy>.rego` as
 * runtime/policy/module.ts names it, so that an error reads `<policy>.rego:3:7: ...` with the source line and
 * a caret in the Compiled condition, the gateway's log and `steward validate` alike.
 */
import { compile } from '../../../rego/index.js';
import { hashOf } from '../hash.js';

/** The module name the runtime gives a Policy's Rego. */
export const moduleName = (policy: string): string => `${policy}.rego`;

/** The rendered compile error (file:line:column, source line, caret), or undefined when the module compiles. */
export function compileError(policy: string, source: string, regoVersion: 'v0' | 'v1'): string | undefined {
  try {
    compile([{ name: moduleName(policy), source, regoVersion }]);
    return undefined;
  } catch (err) {
    const rendered = (err as { rendered?: unknown }).rendered;
    return typeof rendered === 'string' ? rendered : (err as Error).message;
  }
}

/**
 * Remembers results by source, so that the reconciles gateway pod changes cause (every Policy of the namespace,
 * each time) do not compile again. Least recently used results leave first.
 */
export class CompileCache {
  private readonly results = new Map<string, string | undefined>();

  constructor(private readonly maxEntries = 1024) {}

  compileError(policy: string, source: string, regoVersion: 'v0' | 'v1'): string | undefined {
    const key = hashOf(policy, regoVersion, source);
    if (this.results.has(key)) {
      const hit = this.results.get(key);
      this.results.delete(key);
      this.results.set(key, hit);
      return hit;
    }
    const result = compileError(policy, source, regoVersion);
    this.results.set(key, result);
    if (this.results.size > this.maxEntries) this.results.delete(this.results.keys().next().value!);
    return result;
  }
}
