/**
 * A2A Agent Cards (protocol 1.0, the wire's proto-JSON): one per AgentConfig, built from its description, domain and
 * capabilities, each naming its JSON-RPC endpoint on the gateway and the gateway's credentials as its security
 * schemes. docs/a2a.md lists the paths.
 */
import {
  A2A_PROTOCOL_VERSION,
  agentEndpointPath,
  ORCHESTRATOR_ENDPOINT_PATH,
  type AgentConfigResource,
} from '../../api/index.js';

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
 * The Orchestrator's card: one skill, a multi-agent plan over the agents (each has its own card); its messages run
 * as plans.
 */
export function orchestratorCard(site: CardSite, agents: readonly AgentConfigResource[]): Record<string, unknown> {
  const domains = [...new Set(agents.map((a) => a.spec.domain))].sort();
  return {
    name: 'steward-orchestrator',
    description:
      "Steward's orchestrator: plans a request over its agents and runs the plan, every step governed by the organization's policies.",
    supportedInterfaces: [
      {
        url: site.baseUrl + ORCHESTRATOR_ENDPOINT_PATH,
        protocolBinding: 'JSONRPC',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: { organization: 'Steward', url: site.baseUrl },
    version: site.version,
    capabilities: { streaming: true, pushNotifications: false },
    ...security(site),
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'multi-agent-plan',
        name: 'multi-agent plan',
        description: `Plans and runs a request over ${agents.length} agent(s)${domains.length ? ` (${domains.join(', ')})` : ''}; the answer is the plan's result and its steps.`,
        tags: ['plan', ...domains],
      },
    ],
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
