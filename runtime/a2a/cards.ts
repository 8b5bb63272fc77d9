/**
 * A2A Agent Cards (protocol 1.0, the wire's proto-JSON): one per AgentConfig, built from its description, domain and
 * capabilities, each naming its endpoint on the gateway (JSON-RPC and HTTP+JSON) and the gateway's credentials as its
 * security schemes. docs/a2a.md lists the paths.
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
  return card(site, {
    name: agent.metadata.name,
    description: spec.description || `A ${spec.type} agent of the ${spec.domain} domain, governed by Steward.`,
    path: agentEndpointPath(agent.metadata.name),
    outputModes: ['text/plain'],
    skills: (spec.capabilities.length ? spec.capabilities : [spec.domain]).map((capability) => ({
      id: capability,
      name: capability,
      description: `${capability} (${spec.domain})`,
      tags: [spec.domain, capability],
    })),
  });
}

/**
 * The Orchestrator's card: one skill, a multi-agent plan over the agents (each has its own card); its messages run
 * as plans.
 */
export function orchestratorCard(site: CardSite, agents: readonly AgentConfigResource[]): Record<string, unknown> {
  const domains = [...new Set(agents.map((a) => a.spec.domain))].sort();
  return card(site, {
    name: 'steward-orchestrator',
    description:
      "Steward's orchestrator: plans a request over its agents and runs the plan, every step governed by the organization's policies.",
    path: ORCHESTRATOR_ENDPOINT_PATH,
    outputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'multi-agent-plan',
        name: 'multi-agent plan',
        description: `Plans and runs a request over ${agents.length} agent(s)${domains.length ? ` (${domains.join(', ')})` : ''}; the answer is the plan's result and its steps.`,
        tags: ['plan', ...domains],
      },
    ],
  });
}

/** What sets one card apart from another; the rest is the gateway's. */
interface CardBody {
  name: string;
  description: string;
  /** The endpoint's path under the public URL, with its trailing slash: both bindings are served under it. */
  path: string;
  outputModes: string[];
  skills: Record<string, unknown>[];
}

/** The bindings every card lists, at the same URL: JSON-RPC (routes.ts) and HTTP+JSON (rest.ts). */
const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

function card(site: CardSite, body: CardBody): Record<string, unknown> {
  const url = site.baseUrl + body.path;
  return {
    name: body.name,
    description: body.description,
    supportedInterfaces: BINDINGS.map((protocolBinding) => ({
      url,
      protocolBinding,
      protocolVersion: A2A_PROTOCOL_VERSION,
    })),
    provider: { organization: 'Steward', url: site.baseUrl },
    version: site.version,
    capabilities: { streaming: true, pushNotifications: true },
    ...security(site),
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: body.outputModes,
    skills: body.skills,
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
