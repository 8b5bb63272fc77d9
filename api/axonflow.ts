/**
 * The reference product's AgentConfig files (`apiVersion: axonflow.io/v1`) mapped onto Steward's AgentConfig.
 * Two layouts exist: a single agent (`spec.type`, `spec.llm`, ...) and a domain file (`spec.execution`,
 * `spec.agents [...]` of `llm-call`/`connector-call` agents, `spec.routing`, `spec.synthesis`). What maps is
 * mapped (a domain file becomes one AgentConfig per `llm-call` agent); the rest is named in warnings. Pure.
 */
import { API_VERSION } from './constants.js';
import type { FieldIssue } from './validate.js';

/** One Steward-shaped document and how its fields are named in the input (`spec.` → `spec.agents[2].`). */
export interface MappedDocument {
  doc: Record<string, unknown>;
  /** Renames a field of `doc` to the input's field. */
  field(path: string): string;
}

export interface AxonflowMapping {
  documents: MappedDocument[];
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

const SPEC_FIELDS = new Set(['type', 'domain', 'description', 'capabilities', 'llm', 'timeout', 'replicas']);
const AGENT_FIELDS = new Set(['name', 'type', 'description', 'capabilities', 'llm', 'timeout']);
const DOMAIN_SPEC_FIELDS = new Set(['execution', 'agents', 'routing', 'synthesis', 'description', 'domain']);
const LLM_FIELDS = new Set(['provider', 'model']);

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Whether the document uses the domain layout (a list of agents under spec). */
export function isDomainFile(doc: Record<string, unknown>): boolean {
  return isRecord(doc.spec) && (Array.isArray(doc.spec.agents) || isRecord(doc.spec.execution));
}

export function fromAxonflow(input: Record<string, unknown>): AxonflowMapping {
  return isDomainFile(input) ? domainFile(input) : singleAgent(input);
}

/** The LLM block without the reference's tuning fields (temperature, max_tokens: per request in Steward). */
function mapLlm(llm: unknown, at: string, warnings: FieldIssue[]): unknown {
  if (!isRecord(llm)) return llm;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(llm)) {
    if (LLM_FIELDS.has(k)) out[k] = v;
    else
      warnings.push({
        field: `${at}.${k}`,
        message: `ignored: Steward sets ${k} per request (the parallel query's llm, the plan step), not per agent`,
      });
  }
  return out;
}

/** `timeout: 30` (seconds) → `30s`; durations pass through. */
function mapTimeout(value: unknown): unknown {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? `${value}s` : value;
}

function singleAgent(input: Record<string, unknown>): AxonflowMapping {
  const warnings: FieldIssue[] = [];
  const spec: Record<string, unknown> = {};
  if (isRecord(input.spec)) {
    for (const [k, v] of Object.entries(input.spec)) {
      if (!SPEC_FIELDS.has(k))
        warnings.push({ field: `spec.${k}`, message: "ignored: Steward's AgentConfig has no such field" });
      else spec[k] = k === 'llm' ? mapLlm(v, 'spec.llm', warnings) : k === 'timeout' ? mapTimeout(v) : v;
    }
  }
  const doc = { ...input, apiVersion: API_VERSION, ...(isRecord(input.spec) ? { spec } : {}) };
  return { documents: [{ doc, field: (p) => p }], errors: [], warnings };
}

function domainFile(input: Record<string, unknown>): AxonflowMapping {
  const errors: FieldIssue[] = [];
  const warnings: FieldIssue[] = [];
  const spec = input.spec as Record<string, unknown>;
  const metadata = isRecord(input.metadata) ? input.metadata : {};
  const domain = metadata.domain ?? spec.domain;
  if (domain === undefined)
    errors.push({
      field: 'metadata.domain',
      message: 'a domain file needs metadata.domain (the domain of its agents)',
    });
  for (const k of Object.keys(spec)) {
    if (!DOMAIN_SPEC_FIELDS.has(k)) warnings.push({ field: `spec.${k}`, message: 'ignored: no Steward equivalent' });
  }
  const execution = isRecord(spec.execution) ? spec.execution : {};
  let timeout: unknown;
  for (const [k, v] of Object.entries(execution)) {
    if (k === 'timeout_seconds') timeout = mapTimeout(v);
    else if (k === 'default_mode')
      warnings.push({
        field: 'spec.execution.default_mode',
        message:
          'ignored: Steward takes execution_mode (sequential, parallel, auto) per plan request; the default is auto',
      });
    else if (k === 'max_parallel_tasks')
      warnings.push({
        field: 'spec.execution.max_parallel_tasks',
        message: "ignored: Steward bounds parallel steps by the agent pool (each AgentConfig's spec.replicas)",
      });
    else warnings.push({ field: `spec.execution.${k}`, message: 'ignored: no Steward equivalent' });
  }
  if (spec.routing !== undefined)
    warnings.push({
      field: 'spec.routing',
      message: "ignored: Steward's planner selects agents by domain and capabilities",
    });
  if (spec.synthesis !== undefined)
    warnings.push({
      field: 'spec.synthesis',
      message: 'ignored: every Steward plan ends with a synthesis step that depends on the others',
    });
  if (!Array.isArray(spec.agents) || spec.agents.length === 0) {
    errors.push({ field: 'spec.agents', message: 'a domain file needs a non-empty list of agents' });
    return { documents: [], errors, warnings };
  }
  const documents: MappedDocument[] = [];
  spec.agents.forEach((agent: unknown, i: number) => {
    const at = `spec.agents[${i}]`;
    if (!isRecord(agent)) {
      errors.push({ field: at, message: 'an agent must be an object' });
      return;
    }
    if (agent.type === 'connector-call') {
      warnings.push({
        field: `${at}.type`,
        message:
          'skipped: connector-call agents have no AgentConfig in Steward; declare a Connector resource, which plan steps and /mcp use',
      });
      return;
    }
    if (agent.type !== 'llm-call' && agent.type !== 'specialist') {
      errors.push({ field: `${at}.type`, message: 'must be llm-call or connector-call' });
      return;
    }
    const rawName = typeof agent.name === 'string' ? agent.name : '';
    const name = rawName.toLowerCase().replace(/[_\s]+/g, '-');
    if (name !== rawName)
      warnings.push({
        field: `${at}.name`,
        message: `read as ${JSON.stringify(name)}: Kubernetes names are lowercase with "-"`,
      });
    const agentSpec: Record<string, unknown> = {
      type: 'specialist',
      domain,
      description: agent.description ?? '',
      capabilities: agent.capabilities ?? [],
    };
    if (agent.llm !== undefined) agentSpec.llm = mapLlm(agent.llm, `${at}.llm`, warnings);
    const agentTimeout = agent.timeout !== undefined ? mapTimeout(agent.timeout) : timeout;
    if (agentTimeout !== undefined) agentSpec.timeout = agentTimeout;
    for (const k of Object.keys(agent))
      if (!AGENT_FIELDS.has(k))
        warnings.push({ field: `${at}.${k}`, message: "ignored: Steward's AgentConfig has no such field" });
    const doc = {
      apiVersion: API_VERSION,
      kind: 'AgentConfig',
      metadata: { name, ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}) },
      spec: agentSpec,
    };
    documents.push({
      doc,
      field: (p) => (p === 'metadata.name' ? `${at}.name` : p.startsWith('spec.') ? `${at}.${p.slice(5)}` : p),
    });
  });
  if (documents.length) {
    const names = documents.map((d) => (d.doc.metadata as { name: string }).name).join(', ');
    warnings.push({
      field: 'spec.agents',
      message: `this domain file is read as ${documents.length} Steward AgentConfig(s) (${names}), each with apiVersion ${API_VERSION}`,
    });
  }
  return { documents, errors, warnings };
}
