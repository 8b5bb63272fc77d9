/**
 * Steward's MCP server as an OAuth protected resource (the MCP authorization spec, revision 2025-11-25;
 * docs/connectors.md, "OAuth on /mcp"): access tokens are JWTs from one issuer, verified against its JWKS with
 * `jose`, whose audience must be Steward's resource (RFC 8707). RFC 9728 metadata tells clients where to get them;
 * scopes map to the tools a token may see and call. License and API keys keep working beside tokens.
 */
import type * as Jose from 'jose';
import { ApiError } from '../http/errors.js';
import type { Identity, Tier } from './identity.js';

export interface OAuthSettings {
  /** The authorization server's issuer identifier (`iss` of its tokens). */
  issuer: string;
  /** Its JWKS; absent: `jwks_uri` of its RFC 8414 (or OpenID) metadata. */
  jwksUrl?: string;
  /** Steward's resource identifier: the `/mcp` URL clients use, and the audience tokens must carry. */
  resource: string;
  /** The claim that names the Steward organization of a token. */
  organizationClaim: string;
  /** The organization of tokens without that claim; absent: such tokens are refused. */
  organization?: string;
  /** Scope → served tool names (`<connector>__<tool>`, `*` matches any run of characters). */
  scopes: Readonly<Record<string, readonly string[]>>;
}

/** A verified token: who it is for, and what its scopes allow. */
export interface OAuthGrant {
  subject: string;
  scopes: readonly string[];
}

/** Discovery and JWKS fetches: a slow authorization server fails the request, it does not hold it. */
const FETCH_TIMEOUT_MS = 5000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export class OAuthResource {
  private jwks: KeySet | undefined;
  private discovering: Promise<KeySet> | undefined;
  private readonly patterns: { scope: string; match: RegExp }[];

  constructor(
    readonly settings: OAuthSettings,
    private readonly tierOf: (organizationId: string) => Tier,
  ) {
    this.patterns = Object.entries(settings.scopes).flatMap(([scope, tools]) =>
      tools.map((t) => ({ scope, match: globOf(t) })),
    );
  }

  /** Where the RFC 9728 metadata of the resource is served (its path inserted after `/.well-known/…`). */
  get metadataUrl(): string {
    const r = new URL(this.settings.resource);
    return `${r.origin}/.well-known/oauth-protected-resource${r.pathname === '/' ? '' : r.pathname}`;
  }

  /** RFC 9728 protected resource metadata. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.settings.resource,
      authorization_servers: [this.settings.issuer],
      scopes_supported: Object.keys(this.settings.scopes),
      bearer_methods_supported: ['header'],
      resource_name: 'Steward MCP server',
    };
  }

  /** Whether a bearer value is a JWT (an access token), not a Steward API or license key. */
  isToken(bearer: string): boolean {
    return JWT.test(bearer);
  }

  /** The `WWW-Authenticate` challenge of a 401 (no or bad token) or a 403 (a scope missing). */
  challenge(error?: 'invalid_token' | 'insufficient_scope', scopes?: readonly string[]): string {
    const parts = [`resource_metadata="${this.metadataUrl}"`];
    const wanted = scopes ?? Object.keys(this.settings.scopes);
    if (wanted.length) parts.push(`scope="${wanted.join(' ')}"`);
    if (error) parts.unshift(`error="${error}"`);
    return `Bearer ${parts.join(', ')}`;
  }

  /** 401 with the challenge: no credential, or a token that does not verify. */
  unauthorized(message: string, error?: 'invalid_token'): ApiError {
    return new ApiError('gateway', 'UNAUTHORIZED', message, undefined, {
      headers: { 'www-authenticate': this.challenge(error) },
    });
  }

  /**
   * Verifies a token: signature (the issuer's JWKS), issuer, audience (this resource), expiry. Returns the
   * caller's identity in the token's organization and the grant; throws 401 with the challenge.
   */
  async verify(token: string): Promise<{ identity: Identity; grant: OAuthGrant }> {
    const jose = await loadJose();
    let payload: Jose.JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, await this.keys(), {
        issuer: this.settings.issuer,
        audience: this.settings.resource,
      }));
    } catch (err) {
      throw this.unauthorized(`the access token was refused: ${reasonOf(jose, err)}`, 'invalid_token');
    }
    const claim = payload[this.settings.organizationClaim];
    const organizationId = typeof claim === 'string' && claim !== '' ? claim : this.settings.organization;
    if (!organizationId)
      throw this.unauthorized(
        `the access token names no organization (claim ${this.settings.organizationClaim})`,
        'invalid_token',
      );
    const subject = typeof payload.sub === 'string' ? payload.sub : 'unknown';
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    let tier: Tier;
    try {
      tier = this.tierOf(organizationId);
    } catch (err) {
      throw this.unauthorized(
        `the token's organization ${organizationId.slice(0, 64)}: ${reasonOf(jose, err)}`,
        'invalid_token',
      );
    }
    return {
      identity: { credential: 'oauth', organizationId, tier, clientId: `oauth:${subject.slice(0, 128)}` },
      grant: { subject, scopes },
    };
  }

  /** Whether the grant's scopes allow the served tool. */
  allows(grant: OAuthGrant, tool: string): boolean {
    return this.patterns.some((p) => grant.scopes.includes(p.scope) && p.match.test(tool));
  }

  /** The scopes any of which would allow the served tool (a 403's `scope`). */
  scopesFor(tool: string): string[] {
    return [...new Set(this.patterns.filter((p) => p.match.test(tool)).map((p) => p.scope))];
  }

  /** 403 INSUFFICIENT_SCOPE for a tool the grant does not reach, with the step-up challenge. */
  insufficientScope(tool: string): ApiError {
    const scopes = this.scopesFor(tool);
    return new ApiError(
      'gateway',
      'INSUFFICIENT_SCOPE',
      scopes.length
        ? `tool ${tool.slice(0, 128)} needs one of the scopes ${scopes.join(', ')}`
        : `no scope grants tool ${tool.slice(0, 128)}`,
      { tool: tool.slice(0, 128), scopes },
      { headers: { 'www-authenticate': this.challenge('insufficient_scope', scopes) } },
    );
  }

  private async keys(): Promise<KeySet> {
    if (this.jwks) return this.jwks;
    this.discovering ??= Promise.all([this.discover(), loadJose()]).then(
      ([url, jose]) => (this.jwks = jose.createRemoteJWKSet(new URL(url), { timeoutDuration: FETCH_TIMEOUT_MS })),
      (err: unknown) => {
        this.discovering = undefined; // NB: tried again on the next token
        throw err;
      },
    );
    return this.discovering;
  }

  /** The JWKS URL: the setting, else the issuer's RFC 8414 metadata, else its OpenID configuration. */
  private async discover(): Promise<string> {
    if (this.settings.jwksUrl) return this.settings.jwksUrl;
    const base = this.settings.issuer.replace(/\/+$/, '');
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      try {
        const res = await fetch(base + path, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!res.ok) continue;
        const jwksUri = ((await res.json()) as { jwks_uri?: unknown }).jwks_uri;
        if (typeof jwksUri === 'string') return jwksUri;
      } catch {
        // the next document
      }
    }
    throw new Error(`no jwks_uri in the metadata of ${this.settings.issuer}`);
  }
}

function globOf(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`);
}

function escape(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

type KeySet = ReturnType<typeof Jose.createRemoteJWKSet>;

/** `jose`, loaded with the first token: a gateway without an OAuth issuer never loads it. */
const loadJose = (): Promise<typeof Jose> => import('jose');

function reasonOf(jose: typeof Jose, err: unknown): string {
  if (err instanceof jose.errors.JWTExpired) return 'it has expired';
  if (err instanceof jose.errors.JWTClaimValidationFailed) return `claim ${err.claim} is not as required`;
  if (err instanceof jose.errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  return err instanceof Error ? err.message.slice(0, 200) : String(err);
}
