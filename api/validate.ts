import type { z } from 'zod';
import { API_VERSION, LEGACY_AXONFLOW_API_VERSION } from './constants.js';
import { KIND_NAMES, kindByName, type KindName } from './kinds.js';
import type { AnyResource } from './resources.js';
import { fromAxonflow, isDomainFile } from './axonflow.js';
import type { ObjectMeta } from './common.js';
import { budgetTimeZoneIssue } from './budget.js';
import { exceptionExpiryIssue } from './policyexception.js';

/** One finding, in the service reference's validation-result shape. */
export interface FieldIssue {
  field: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: FieldIssue[];
  warnings: FieldIssue[];
  /** The normalized resource (defaults applied) when valid; the first of `resources`. */
  resource?: AnyResource;
  /**
   * Every resource the document stands for, when valid: one, except for the reference product's domain files
   * (`axonflow.io/v1` with `spec.agents`), which stand for one AgentConfig per `llm-call` agent.
   */
  resources?: AnyResource[];
}

/** What a rule sees besides the spec: the object's metadata (its creation) and the clock of the validation. */
interface RuleContext {
  metadata: ObjectMeta;
  now: Date;
}

type Rule = (spec: Record<string, unknown>, context: RuleContext) => FieldIssue | undefined;

export interface ValidateOptions {
  /** The clock of time-bound checks (a PolicyException's expiry). @default the current time */
  now?: Date;
}

/** Cross-field rules that a structural schema cannot say; checked after the schema passes. */
const RULES: Partial<Record<KindName, Rule[]>> = {
  AgentConfig: [
    (s) =>
      s.type === 'specialist' && s.llm === undefined
        ? { field: 'spec.llm', message: 'spec.llm is required for specialist agents (provider and model)' }
        : undefined,
  ],
  Policy: [
    (s) =>
      s.action === 'redact' && (s.rego !== undefined || s.wasm !== undefined)
        ? {
            field: s.rego !== undefined ? 'spec.rego' : 'spec.wasm',
            message: 'a redact policy has no spec.rego or spec.wasm: its detectors (spec.redact.kinds) are its rule',
          }
        : undefined,
    (s) =>
      s.action === 'redact' && s.redact === undefined
        ? { field: 'spec.redact', message: 'spec.redact.kinds is required with action redact' }
        : undefined,
    (s) =>
      s.action !== 'redact' && s.redact !== undefined
        ? { field: 'spec.redact', message: 'spec.redact is only allowed with action redact' }
        : undefined,
    (s) => {
      const other = ((s.scope as { surfaces?: string[] } | undefined)?.surfaces ?? []).find((x) => x !== 'llm_output');
      return s.action === 'redact' && other !== undefined
        ? { field: 'spec.scope.surfaces', message: `a redact policy applies to llm_output only, not ${other}` }
        : undefined;
    },
    (s) =>
      s.action !== 'redact' && (s.rego === undefined) === (s.wasm === undefined)
        ? { field: 'spec.rego', message: 'exactly one of spec.rego or spec.wasm must be set' }
        : undefined,
    (s) => {
      const wasm = s.wasm as { bundleBase64?: string; configMapRef?: unknown } | undefined;
      return wasm && (wasm.bundleBase64 === undefined) === (wasm.configMapRef === undefined)
        ? { field: 'spec.wasm', message: 'exactly one of spec.wasm.bundleBase64 or spec.wasm.configMapRef must be set' }
        : undefined;
    },
    (s) =>
      s.shadowOf !== undefined && s.enforcementAction !== 'audit' && s.enforcementAction !== 'dryrun'
        ? { field: 'spec.shadowOf', message: 'a shadow policy runs in audit mode: set spec.enforcementAction: audit' }
        : undefined,
  ],
  Connector: [
    (s) => {
      const c = s.connection as { secretRef?: unknown; fromEnv?: unknown };
      if (s.type === 'pglite') {
        return c.secretRef !== undefined || c.fromEnv !== undefined
          ? {
              field: 'spec.connection',
              message: 'a pglite connector has no connection: its database is embedded and filled from spec.seed',
            }
          : undefined;
      }
      return (c.secretRef === undefined) === (c.fromEnv === undefined)
        ? {
            field: 'spec.connection',
            message: 'exactly one of spec.connection.secretRef or spec.connection.fromEnv must be set',
          }
        : undefined;
    },
    (s) =>
      (s.type === 'pglite') === (s.seed === undefined)
        ? {
            field: 'spec.seed',
            message:
              s.seed === undefined
                ? 'spec.seed is required with type pglite'
                : 'spec.seed is only allowed with type pglite',
          }
        : undefined,
  ],
  License: [
    (s) =>
      (s.keySecretRef === undefined) === (s.keyFromEnv === undefined)
        ? { field: 'spec.keySecretRef', message: 'exactly one of spec.keySecretRef or spec.keyFromEnv must be set' }
        : undefined,
  ],
  Budget: [(s) => budgetTimeZoneIssue(s as { window: { timeZone: string } })],
  PolicyException: [
    (s, c) =>
      exceptionExpiryIssue(s as { expiresAt?: string; permanent: boolean }, {
        creationTimestamp: c.metadata.creationTimestamp,
        now: c.now,
      }),
  ],
};

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

function zodIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => {
    if (i.code === 'unrecognized_keys') {
      const at = issuePath(i.path);
      return {
        field: at === '(root)' ? i.keys.join(', ') : `${at}.${i.keys[0]}`,
        message: `unknown field(s): ${i.keys.join(', ')}`,
      };
    }
    return { field: issuePath(i.path), message: i.message };
  });
}

/**
 * Validates one manifest the way every entry point does (kubectl-style files, the validate endpoint, the
 * standalone loader). Accepts the reference product's `axonflow.io/v1` AgentConfig and its `metadata.domain`,
 * mapping them onto Steward's schema with warnings.
 */
export function validateManifest(input: unknown, options: ValidateOptions = {}): ValidationResult {
  const errors: FieldIssue[] = [];
  const warnings: FieldIssue[] = [];
  if (!isRecord(input)) {
    return {
      valid: false,
      errors: [{ field: '(root)', message: 'a manifest must be a YAML or JSON object' }],
      warnings,
    };
  }
  const doc: Record<string, unknown> = { ...input };
  const kind = typeof doc.kind === 'string' ? kindByName(doc.kind) : undefined;
  if (!kind) {
    const message =
      doc.kind === undefined
        ? 'kind is required'
        : `unknown kind ${JSON.stringify(doc.kind)}; expected one of ${KIND_NAMES.join(', ')}`;
    return { valid: false, errors: [{ field: 'kind', message }], warnings };
  }
  const now = options.now ?? new Date();
  if (doc.apiVersion === LEGACY_AXONFLOW_API_VERSION && kind.kind === 'AgentConfig') return validateAxonflow(doc, now);
  if (doc.apiVersion !== API_VERSION) {
    errors.push({
      field: 'apiVersion',
      message:
        doc.apiVersion === undefined ? `apiVersion is required (${API_VERSION})` : `apiVersion must be ${API_VERSION}`,
    });
    return { valid: false, errors, warnings };
  }
  return validateKind(kind.kind as KindName, doc, warnings, now);
}

/** Validates a Steward document of a known kind (apiVersion checked). */
function validateKind(
  kindName: KindName,
  doc: Record<string, unknown>,
  warnings: FieldIssue[],
  now: Date,
): ValidationResult {
  const errors: FieldIssue[] = [];
  if (kindName === 'AgentConfig') mapMetadataDomain(doc, errors, warnings);
  if (errors.length) return { valid: false, errors, warnings };
  const parsed = kindByName(kindName)!.resource.safeParse(doc);
  if (!parsed.success) return { valid: false, errors: zodIssues(parsed.error), warnings };
  const resource = parsed.data as AnyResource;
  for (const rule of RULES[kindName] ?? []) {
    const issue = rule(resource.spec as Record<string, unknown>, { metadata: resource.metadata, now });
    if (issue) errors.push(issue);
  }
  return errors.length
    ? { valid: false, errors, warnings }
    : { valid: true, errors, warnings, resource, resources: [resource] };
}

/**
 * The reference product's AgentConfig (axonflow.io/v1, single agent or domain file; api/axonflow.ts): the mapped
 * documents validated as Steward's, their findings named by the input's fields, and a warning naming the
 * apiVersion kubectl needs.
 */
function validateAxonflow(doc: Record<string, unknown>, now: Date): ValidationResult {
  const mapped = fromAxonflow(doc);
  const errors = [...mapped.errors];
  const warnings: FieldIssue[] = [
    {
      field: 'apiVersion',
      message: isDomainFile(doc)
        ? `apiVersion ${LEGACY_AXONFLOW_API_VERSION} domain files are accepted here; kubectl needs one AgentConfig per agent with apiVersion ${API_VERSION}`
        : `apiVersion ${LEGACY_AXONFLOW_API_VERSION} is accepted here; use apiVersion ${API_VERSION} to apply this AgentConfig with kubectl`,
    },
    ...mapped.warnings,
  ];
  const resources: AnyResource[] = [];
  for (const m of mapped.documents) {
    const own: FieldIssue[] = [];
    const r = validateKind('AgentConfig', m.doc, own, now);
    const rename = (i: FieldIssue) => ({ field: m.field(i.field), message: i.message });
    warnings.push(...own.map(rename));
    errors.push(...r.errors.map(rename));
    if (r.resource) resources.push(r.resource);
  }
  if (errors.length || !resources.length) {
    if (!errors.length)
      errors.push({ field: 'spec.agents', message: 'no agent of this file maps onto a Steward AgentConfig' });
    return { valid: false, errors, warnings };
  }
  return { valid: true, errors, warnings, resource: resources[0], resources };
}

/** Kubernetes metadata cannot hold `domain`; the reference puts it there. Move it to spec.domain. */
function mapMetadataDomain(doc: Record<string, unknown>, errors: FieldIssue[], warnings: FieldIssue[]): void {
  if (!isRecord(doc.metadata) || doc.metadata.domain === undefined) return;
  const { domain, ...metadata } = doc.metadata;
  const spec = isRecord(doc.spec) ? { ...doc.spec } : {};
  if (spec.domain !== undefined && spec.domain !== domain) {
    errors.push({
      field: 'metadata.domain',
      message: `metadata.domain (${String(domain)}) conflicts with spec.domain (${String(spec.domain)})`,
    });
    return;
  }
  spec.domain = domain;
  doc.metadata = metadata;
  doc.spec = spec;
  warnings.push({
    field: 'metadata.domain',
    message:
      'metadata.domain is not valid Kubernetes metadata; it was read as spec.domain, which is where kubectl needs it',
  });
}
