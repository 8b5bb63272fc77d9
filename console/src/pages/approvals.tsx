/**
 * The approval queue of the Connectors page: parked tool calls (`GET /api/approvals?state=pending`, docs/approvals.md)
 * and, for a caller with the `approver` role, their answers (`POST /api/approvals/{id}`). The server decides who may
 * answer (no self-approval, the role); the page only leaves out buttons that could not work.
 */
import { useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Freshness, Time } from '../components/page';
import { Table, type Column } from '../components/table';
import { NONE } from '../format';
import { useLoad } from '../load';
import { useNotices } from '../notices';
import { hasRole, useSession } from '../session';
import type { Approval, ApprovalList } from '../types';

type Answer = 'approve' | 'deny';

const DONE: Record<Answer, string> = { approve: 'Approved', deny: 'Denied' };

function Policies({ a }: { a: Approval }) {
  if (!a.policies?.length) return <>{NONE}</>;
  return (
    <ul class="plain">
      {a.policies.map((p) => (
        <li key={p.policy}>
          <strong>{p.policy}</strong>
          {p.reasons?.length ? `: ${p.reasons.join('; ')}` : ''}
        </li>
      ))}
    </ul>
  );
}

const COLUMNS: Column<Approval>[] = [
  { header: 'Approval', cell: (a) => <code>{a.id}</code> },
  { header: 'Connector', cell: (a) => a.connector },
  { header: 'Tool', cell: (a) => a.tool },
  // NB: the arguments come masked from the server and are shown as they are
  { header: 'Arguments', cell: (a) => <pre class="args">{JSON.stringify(a.arguments, null, 2) ?? NONE}</pre> },
  { header: 'Policies and reasons', cell: (a) => <Policies a={a} /> },
  { header: 'Requested by', cell: (a) => a.requested_by },
  { header: 'Expires', cell: (a) => <Time iso={a.expires_at} /> },
];

interface AnswerProps {
  approval: Approval;
  busy: boolean;
  onAnswer: (id: string, answer: Answer, comment: string) => void;
}

function AnswerControls({ approval, busy, onAnswer }: AnswerProps) {
  const [comment, setComment] = useState('');
  const id = approval.id;
  const answer = (a: Answer) => !busy && onAnswer(id, a, comment.trim());
  return (
    <div class="answer">
      <input
        type="text"
        aria-label={`Comment for ${id}`}
        placeholder="Comment (optional)"
        maxLength={1024}
        value={comment}
        onInput={(e) => setComment(e.currentTarget.value)}
      />
      <button type="button" aria-label={`Approve ${id}`} aria-disabled={busy} onClick={() => answer('approve')}>
        Approve
      </button>
      <button type="button" aria-label={`Deny ${id}`} aria-disabled={busy} onClick={() => answer('deny')}>
        Deny
      </button>
    </div>
  );
}

export function ApprovalQueue() {
  const { session } = useSession();
  const notices = useNotices();
  const approver = hasRole(session, 'approver');
  const [answering, setAnswering] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);
  const queue = useLoad((signal) => api<ApprovalList>('/api/approvals?state=pending', { signal }), []);

  const onAnswer = async (id: string, answer: Answer, comment: string) => {
    setAnswering(id);
    try {
      await api(`/api/approvals/${encodeURIComponent(id)}`, {
        method: 'POST',
        body: comment ? { decision: answer, comment } : { decision: answer },
      });
      notices.status(`${DONE[answer]} ${id}`);
      // NB: the answered row leaves the queue, and the focus with it unless it moves first
      heading.current?.focus();
      queue.reload();
    } catch (err) {
      notices.alert(err);
    } finally {
      setAnswering(undefined);
    }
  };

  const columns: Column<Approval>[] = approver
    ? [
        ...COLUMNS,
        {
          header: 'Answer',
          cell: (a) => <AnswerControls approval={a} busy={answering !== undefined} onAnswer={onAnswer} />,
        },
      ]
    : COLUMNS;

  return (
    <section aria-labelledby="approvals-title">
      <h2 id="approvals-title" tabIndex={-1} ref={heading}>
        Approvals
      </h2>
      {!approver && (
        <p class="note">
          Read only: approving or denying a call needs an API key with the <code>approver</code> role (or a license
          key). Sign in with one to answer these.
        </p>
      )}
      <Freshness at={queue.at} loading={queue.loading} onRefresh={queue.reload} what="approvals" />
      <Table
        caption="Approvals waiting"
        columns={columns}
        rows={queue.data?.approvals ?? []}
        rowKey={(a) => a.id}
        rowAttributes={(a) => ({ 'data-approval-id': a.id })}
        rowHeader
        empty="No call is waiting for approval."
        busy={queue.loading}
      />
    </section>
  );
}
