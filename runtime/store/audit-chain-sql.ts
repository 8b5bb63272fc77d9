/**
 * Migration 9: the audit hash chains (docs/audit-evidence.md). `link(seq) = SHA-256(link(seq − 1) ‖ digest(row))`,
 * `link(0)` being 32 zero bytes; `digest(row)` is what the writer put in `row_digest` (SHA-256 of the row's RFC 8785
 * canonical JSON). The chain head of an organization is one row of `audit_chains`, updated by the insert trigger:
 * its row lock orders one organization's inserts, and only theirs.
 */
export const AUDIT_CHAIN_SQL = `
CREATE TABLE audit_chains (
  organization_id text PRIMARY KEY,
  seq bigint NOT NULL,
  head bytea NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE audit_entries ADD COLUMN row_digest bytea;
ALTER TABLE audit_entries ADD COLUMN chain_seq bigint;
ALTER TABLE audit_entries ADD COLUMN chain_hash bytea;
CREATE UNIQUE INDEX audit_entries_chain_idx ON audit_entries (organization_id, chain_seq) WHERE chain_seq IS NOT NULL;

-- Signed checkpoints of each chain: (seq, hash) signed with the installation's Ed25519 audit key; kind 'pruned'
-- marks where a retention prune cut the chain (verification starts there).
CREATE TABLE audit_checkpoints (
  organization_id text NOT NULL,
  seq bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('checkpoint', 'pruned')),
  hash bytea NOT NULL,
  signed_at timestamptz NOT NULL,
  key_id text NOT NULL,
  signature text NOT NULL,
  PRIMARY KEY (organization_id, seq, kind)
);

-- When the chains began: rows older than this and unchained were written before them.
CREATE TABLE audit_chain_epoch (one boolean PRIMARY KEY DEFAULT true CHECK (one), started_at timestamptz NOT NULL);
INSERT INTO audit_chain_epoch (started_at) VALUES (now());

CREATE FUNCTION steward_audit_chain() RETURNS trigger LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  s bigint;
  h bytea;
BEGIN
  -- NB: a row without a digest is not linked; verification reports it as outside the chain.
  IF NEW.row_digest IS NULL THEN
    RETURN NEW;
  END IF;
  INSERT INTO audit_chains AS c (organization_id, seq, head)
    VALUES (NEW.organization_id, 1, sha256(decode(repeat('00', 32), 'hex') || NEW.row_digest))
    ON CONFLICT (organization_id) DO UPDATE SET seq = c.seq + 1, head = sha256(c.head || NEW.row_digest)
    RETURNING c.seq, c.head INTO s, h;
  NEW.chain_seq := s;
  NEW.chain_hash := h;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER audit_entries_chain BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION steward_audit_chain();
`;
