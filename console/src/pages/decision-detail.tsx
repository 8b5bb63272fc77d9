/**
 * One audit entry (`GET /api/v1/audit/entries/{id}`): what was decided and by which policies, the text as the
 * gateway stored it (masked at write; never unmasked here), and the whole metadata. The metadata is the row's own
 * and differs by surface and version, so every field of it is read defensively.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { PageProps } from '../app';
import { Badge } from '../components/badge';
import { Page, Time } from '../components/page';
import { Table, type Column } from '../components/table';
import { formatCount, formatMs, formatUsd, NONE } from '../format';
import { useLoad } from '../load';
import { cameFrom } from '../router';
import type { AuditEntryDetail } from '../types';
import { DECISIONS_PATH } from './decisions';

interface PolicyResult {
  policy: string;
  decision?: string;
  would?: string;
  reasons: string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const word = (v: unknown): string | undefined =>
  typeof v === 'string' ? v || undefined : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** `metadata.policy_results` when the row has them, else the names of the policies that matched. */
function policyResults(entry: AuditEntryDetail): PolicyResult[] {
  const results = entry.metadata?.policy_results;
  if (Array.isArray(results) && results.length > 0) {
    return results.map((r) => {
      const o = isRecord(r) ? r : {};
      return {
        policy: word(o.policy) ?? word(r) ?? NONE,
        decision: word(o.decision),
        would: word(o.would),
        reasons: Array.isArray(o.reasons) ? o.reasons.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [],
      };
    });
  }
  return (entry.policies ?? []).map((policy) => ({ policy, reasons: [] }));
}

const RESULT_COLUMNS: Column<PolicyResult>[] = [
  { header: 'Policy', cell: (r) => r.policy },
  { header: 'Decision', cell: (r) => <Badge text={r.decision} /> },
  { header: 'Would', cell: (r) => r.would ?? NONE },
  {
    header: 'Reasons',
    cell: (r) =>
      r.reasons.length ? (
        <ul class="plain">
          {r.reasons.map((reason, i) => (
            <li key={i}>{reason}</li>
          ))}
        </ul>
      ) : (
        NONE
      ),
  },
];

function tokens(e: AuditEntryDetail): string {
  const parts = [
    e.prompt_tokens !== undefined && `${formatCount(e.prompt_tokens)} prompt`,
    e.completion_tokens !== undefined && `${formatCount(e.completion_tokens)} completion`,
    e.total_tokens !== undefined && `${formatCount(e.total_tokens)} total`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : NONE;
}

function facts(e: AuditEntryDetail): [string, string, ComponentChildren][] {
  const stewardMs = e.metadata?.steward_ms;
  return [
    ['Time', 'created_at', <Time iso={e.created_at} />],
    ['Decision', 'decision', <Badge text={e.decision} />],
    ['Surface', 'surface', e.via ? `${e.surface ?? NONE} via ${e.via}` : (e.surface ?? NONE)],
    ['Client', 'client_id', e.client_id || NONE],
    ['Agent', 'agent', e.agent ?? NONE],
    ['Tenant', 'tenant_id', e.tenant_id ?? NONE],
    ['Model', 'model', e.model ? `${e.provider ?? NONE} / ${e.model}` : (e.provider ?? NONE)],
    ['Trace id', 'trace_id', e.trace_id ? <code>{e.trace_id}</code> : NONE],
    ['Cost', 'cost_usd', formatUsd(e.cost_usd)],
    ['Tokens', 'tokens', tokens(e)],
    ["Steward's added time", 'steward_ms', formatMs(typeof stewardMs === 'number' ? stewardMs : undefined)],
    ['Latency of the call', 'latency_ms', formatMs(e.latency_ms)],
    ['Stored text', 'stored_text', e.stored_text ?? NONE],
  ];
}

function Text({ title, field, text }: { title: string; field: string; text?: string }) {
  return (
    <section>
      <h2>{title}</h2>
      {text === undefined ? <p>Not stored.</p> : <pre data-field={field}>{text}</pre>}
    </section>
  );
}

/** Back to the list as it was, when the entry was opened from it. */
function listHref(): string {
  const from = cameFrom();
  return from && (from === DECISIONS_PATH || from.startsWith(`${DECISIONS_PATH}?`)) ? from : DECISIONS_PATH;
}

function decode(param: string): string {
  try {
    return decodeURIComponent(param);
  } catch {
    return param;
  }
}

export function DecisionDetail({ param = '' }: PageProps) {
  const id = decode(param);
  const [back] = useState(listHref);
  const entry = useLoad(
    (signal) => api<AuditEntryDetail>(`/api/v1/audit/entries/${encodeURIComponent(id)}`, { signal }),
    [id],
  );
  const e = entry.data;
  return (
    <Page title={`Audit entry ${id}`}>
      <p>
        <a href={back}>Back to decisions</a>
      </p>
      {!e ? (
        <p>{entry.loading ? 'Loading…' : 'The entry could not be loaded.'}</p>
      ) : (
        <>
          <dl class="facts">
            {facts(e).map(([term, field, value]) => (
              <div key={field}>
                <dt>{term}</dt>
                <dd data-field={field}>{value}</dd>
              </div>
            ))}
          </dl>
          <section>
            <Table
              caption="Policies that matched"
              columns={RESULT_COLUMNS}
              rows={policyResults(e)}
              rowKey={(r, i) => `${i}:${r.policy}`}
              rowHeader
              empty="No policy matched."
            />
          </section>
          <Text title="Prompt" field="prompt" text={e.prompt} />
          <Text title="Response" field="response" text={e.response} />
          <details>
            <summary>Metadata (JSON)</summary>
            <pre data-field="metadata">{JSON.stringify(e.metadata ?? {}, null, 2)}</pre>
          </details>
        </>
      )}
    </Page>
  );
}
