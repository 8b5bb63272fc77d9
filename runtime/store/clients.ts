import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from './db.js';
import { newId } from './ids.js';

export interface ClientRecord {
  id: string;
  organizationId: string;
  tenantId: string | null;
  name: string;
  description: string;
  createdAt: Date;
  /** What the key may do besides calling (`approver`: answer approvals), given when it was created. */
  roles: string[];
  /** When the key was revoked; a revoked key authenticates nothing. */
  revokedAt?: Date;
}

/** SHA-256 of an API key; keys are random 256-bit strings, so a fast hash is the right tool (no password). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** `client-{name}-{env}-{hash}` as the reference shows legacy keys; the tail is 43 random base64url chars. */
export function mintApiKey(name: string, env: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 32) || 'app';
  return `client-${slug}-${env}-${randomBytes(32).toString('base64url')}`;
}

interface Row {
  id: string;
  organization_id: string;
  tenant_id: string | null;
  name: string;
  description: string;
  created_at: Date | string;
  roles?: string[] | null;
  revoked_at?: Date | string | null;
}

const toRecord = (r: Row): ClientRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  tenantId: r.tenant_id,
  name: r.name,
  description: r.description,
  createdAt: new Date(r.created_at),
  roles: r.roles ?? [],
  ...(r.revoked_at ? { revokedAt: new Date(r.revoked_at) } : {}),
});

export class ClientRepository {
  constructor(private readonly db: Queryable) {}

  /** Creates a client and returns it with its API key — the only time the key exists in clear. */
  async create(input: {
    organizationId: string;
    tenantId?: string;
    name: string;
    description?: string;
    env?: string;
    roles?: readonly string[];
  }) {
    const apiKey = mintApiKey(input.name, input.env ?? 'prod');
    const { rows } = await this.db.query<Row>(
      `INSERT INTO clients (id, organization_id, tenant_id, name, description, api_key_hash, api_key_prefix, roles)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING id, organization_id, tenant_id, name, description, created_at, roles`,
      [
        newId('cli'),
        input.organizationId,
        input.tenantId ?? null,
        input.name,
        input.description ?? '',
        hashApiKey(apiKey),
        apiKey.slice(0, 16),
        [...(input.roles ?? [])],
      ],
    );
    return { client: toRecord(rows[0]!), apiKey };
  }

  async list(organizationId: string): Promise<ClientRecord[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT id, organization_id, tenant_id, name, description, created_at, roles FROM clients
       WHERE organization_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
      [organizationId],
    );
    return rows.map(toRecord);
  }

  /** Looks a presented key up by its hash; a revoked key is found with its `revokedAt`, so callers can tell it apart. */
  async findByApiKey(apiKey: string): Promise<ClientRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT id, organization_id, tenant_id, name, description, created_at, roles, revoked_at FROM clients WHERE api_key_hash = $1`,
      [hashApiKey(apiKey)],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** One live client of the organization. */
  async get(organizationId: string, id: string): Promise<ClientRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT id, organization_id, tenant_id, name, description, created_at, roles FROM clients
       WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL`,
      [organizationId, id],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Revokes a live client's key at `at`; false when there is none (unknown, another organization's, or revoked). */
  async revoke(organizationId: string, id: string, at: Date = new Date()): Promise<boolean> {
    const { rows } = await this.db.query(
      'UPDATE clients SET revoked_at = $3 WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id',
      [organizationId, id, at],
    );
    return rows.length === 1;
  }
}
