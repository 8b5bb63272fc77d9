/**
 * A2A Agent Cards (protocol 1.0, the wire's proto-JSON): one per AgentConfig, built from its description, domain and
 * capabilities, each naming its JSON-RPC endpoint on the gateway and the gateway's credentials as its security
 * schemes. docs/a2a.md lists the paths.
 */
import type { AgentConfigResource } from '../../api/index.js';

/** The A2A protocol version Steward serves (`A2A-Version`). */
export const A2A_PROTOCOL_VERSION = '1.0';

/**
 * Where an agent's JSON-RPC endpoint is, under the gateway's public URL. NB: with a trailing slash: A2A clients
 * resolve `.well-known/agent-card.json` against the agent's URL, and without the slash that would drop its name.
 */
export function agentEndpointPath(name: string): string {
  return `/a2a/agents/${encodeURIComponent(name)}/`;
}

/** Where an agent's card is: its endpoint's well-known path, where A2A clients look for it. */
export function agentCardPath(name: string): string {
  return `${agentEndpointPath(name)}.well-known/agent-card.json`;
}

/** Where the public keys that sign the cards are (a JWK Set). */
export const CARD_KEYS_PATH = '/.well-known/a2a-card-keys.json';

export interface CardSite {
  /** The gateway's public URL, without a trailing slash (STEWARD_PUBLIC_URL). */
  baseUrl: string;
  /** Steward's version, the cards' `version`. */
  version: string;
  /** Community mode: calls need no credential, and the cards name none. */
  open: boolean;
}

/** The card of one AgentConfig, unsigned, as it goes on the wire. */
export function agentCard(site: CardSite, agent: AgentConfigResource): Record<string, unknown> {
  const { spec } = agent;
  const name = agent.metadata.name;
  const about = spec.description || `A ${spec.type} agent of the ${spec.domain} domain, governed by Steward.`;
  const skills = (spec.capabilities.length ? spec.capabilities : [spec.domain]).map((capability) => ({
    id: capability,
    name: capability,
    description: `${capability} (${spec.domain})`,
    tags: [spec.domain, capability],
  }));
  return {
    name,
    description: about,
    supportedInterfaces: [
      {
        url: site.baseUrl + agentEndpointPath(name),
        protocolBinding: 'JSONRPC',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: { organization: 'Steward', url: site.baseUrl },
    version: site.version,
    capabilities: { streaming: true, pushNotifications: false },
    ...security(site),
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills,
  };
}

/**
 * The gateway's credentials as security schemes: an API key or license key as `Authorization: Bearer`, or a license
 * key as `X-License-Key`; either one satisfies the card. Community mode asks for none.
 */
function security(site: CardSite): Record<string, unknown> {
  if (site.open) return { securitySchemes: {}, securityRequirements: [] };
  return {
    securitySchemes: {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          description: 'a Steward API key (POST /api/clients) or license key',
        },
      },
      licenseKey: {
        apiKeySecurityScheme: { location: 'header', name: 'X-License-Key', description: 'a Steward license key' },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { licenseKey: { list: [] } } }],
  };
}
