import type { PolicyResource } from '../../api/index.js';
import { compile, type PolicyModule } from '../../rego/index.js';

/**
 * The Rego module of a Policy document, named `<policy>.rego` so that its errors read `<policy>.rego:3:7` in the
 * log, on /health and in `steward validate` alike; undefined for a wasm-only or redact policy.
 */
export function policyModule(doc: PolicyResource): PolicyModule | undefined {
  // NB: a redact policy has no module (validation refuses one): the engine keeps it apart
  if (doc.spec.rego === undefined || doc.spec.action === 'redact') return undefined;
  return {
    name: `${doc.metadata.name}.rego`,
    source: doc.spec.rego,
    regoVersion: doc.spec.regoVersion,
    priority: doc.spec.priority,
    action: doc.spec.action,
  };
}

/** The module's compile error on its own (rendered with file:line:column and a caret), or undefined when it compiles. */
export function compileError(module: PolicyModule): string | undefined {
  try {
    compile([{ name: module.name, source: module.source, regoVersion: module.regoVersion }]);
    return undefined;
  } catch (err) {
    const rendered = (err as { rendered?: unknown }).rendered;
    return typeof rendered === 'string' ? rendered : (err as Error).message;
  }
}
