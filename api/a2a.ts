/**
 * Where Steward's A2A agents are on the gateway (docs/a2a.md): the contract the gateway serves (runtime/a2a) and the
 * operator writes into each AgentConfig's status.
 */

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

/**
 * The one tool of an `a2a` Connector (a remote A2A agent): a message (`text`, `data`), answered by the agent's task.
 * What `a2a-call` plan steps call.
 */
export const A2A_SEND_TOOL = 'send_message';

/** The Orchestrator's JSON-RPC endpoint: messages to it run as multi-agent plans. */
export const ORCHESTRATOR_ENDPOINT_PATH = '/a2a/';

/** The Orchestrator's card: the gateway's own well-known path, where A2A clients look first. */
export const ORCHESTRATOR_CARD_PATH = '/.well-known/agent-card.json';
