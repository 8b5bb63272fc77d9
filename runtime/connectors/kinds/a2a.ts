/**
 * A remote A2A agent (protocol 1.0) by its Agent Card (docs/connectors.md, "a2a"). The card is read from the
 * connection URL (the card's URL, or the agent's base URL under which `/.well-known/agent-card.json` is), and used
 * only once one of its signatures verifies against the keys the Connector trusts (a2a-card.ts). Its one tool,
 * `send_message`, sends a message with the official SDK's client and waits for the task: streamed when the card
 * offers streaming, else sent and polled. Every request goes through the SSRF guard of http connectors: the card's
 * interfaces must be on the card's origin and below the agent's base path.
 *
 * The card is pinned as the definition of `send_message` (pins/pins.ts, as an `mcp` connector's tools are): a card
 * that changes after it was approved holds the tool (TOOL_DEFINITION_CHANGED) until `steward.dev/approve-tools`
 * names the new one. The card is read again at each health check.
 */
import type { AgentCard, Message, Part, StreamResponse, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { JWK } from 'jose';
import { endSpan, startRemoteAgentSpan, traceHeaders, withSpan } from '../../tracing/index.js';
import { redactValue } from '../../redact/index.js';
import { ConnectorError, isConnectorError } from '../errors.js';
import { Backoff, toolResult, withTimeout } from '../limits.js';
import { splitCredentials } from '../net/auth.js';
import { GuardedHttp } from '../net/client.js';
import type { ConnectorOptions, EffectiveLimits } from '../options.js';
import type { ToolGate } from '../pins/pins.js';
import type { Connector, HealthResult, PreparedStatement, QueryResult, ToolDescription, ToolResult } from '../types.js';
import { ConnectorBase } from './base.js';
import { CardTrust, publicKeys } from './a2a-card.js';

/** The connector's one tool. */
export const SEND_MESSAGE = 'send_message';
/** Where an agent's card is below its base URL (A2A 1.0). */
const CARD_PATH = '.well-known/agent-card.json';
/** The largest card read. */
const CARD_MAX_BYTES = 512 * 1024;
/** How often a task that is not streamed is asked about while it runs. */
const POLL_MS = 500;
/** How long a text a remote agent answers with may be in an error message. */
const STATUS_TEXT_CHARS = 300;

const SEND_SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'the message, as a text part' },
    data: { type: 'object', description: 'structured input, as a data part' },
    context_id: { type: 'string', description: 'continue this conversation (a context id an earlier answer gave)' },
    task_id: { type: 'string', description: 'answer this task (one that asked for input)' },
  },
  anyOf: [{ required: ['text'] }, { required: ['data'] }],
} as const;

type Sdk = typeof import('@a2a-js/sdk') & typeof import('@a2a-js/sdk/client');

/** The verified card and the SDK client made from it. */
interface Session {
  card: AgentCard;
  canonical: string;
  client: Client;
  /** The interface the client speaks to (for the span's server address). */
  url: URL;
}

/** A task's state in the words of the result (`completed`, `input_required`, ...). */
type StateName = string;

export class A2aConnector extends ConnectorBase implements Connector {
  private readonly http: GuardedHttp;
  private readonly keysHttp: GuardedHttp | undefined;
  private readonly cardUrl: URL;
  private readonly auth: Record<string, string>;
  private readonly trust: CardTrust;
  private readonly backoff = new Backoff();
  private current: Session | undefined;
  private loading: Promise<Session> | undefined;
  /** Why the last card read was refused (calls fail with it until a card verifies). */
  private refusal: ConnectorError | undefined;

  constructor(
    name: string,
    url: string,
    options: ConnectorOptions,
    private readonly gate?: ToolGate,
  ) {
    super(name, 'a2a', url, options);
    if (!options.cardKeys && !options.cardKeysUrl && !options.unsignedCard)
      throw new ConnectorError(
        'CONNECTOR_MISCONFIGURED',
        'an a2a connector names the keys its card must be signed with: options.cardKeys or cardKeysUrl (or unsignedCard: true, labs only)',
        { connector: name },
      );
    const split = splitCredentials(url);
    this.auth = split.headers;
    const { base, card } = cardLocation(split.url);
    this.cardUrl = card;
    const guard = {
      allowedCidrs: options.allowedCidrs,
      maxRedirects: options.maxRedirects,
      connectTimeoutMs: options.connectTimeoutMs,
      poolMax: options.poolMax,
    };
    this.http = new GuardedHttp({ baseUrl: base, ...guard });
    this.http.resolve(card.href);
    this.keysHttp = options.cardKeysUrl ? new GuardedHttp({ baseUrl: options.cardKeysUrl, ...guard }) : undefined;
    this.trust = new CardTrust(
      name,
      publicKeys((options.cardKeys?.keys ?? []) as JWK[]),
      this.keysHttp
        ? { http: this.keysHttp, url: this.keysHttp.resolve(options.cardKeysUrl!), timeoutMs: options.timeoutMs }
        : undefined,
      options.unsignedCard,
    );
  }

  async connect(): Promise<void> {
    await this.load();
  }

  async health(timeoutMs: number): Promise<HealthResult> {
    const started = performance.now();
    try {
      // NB: the card is read again at each check: a card that changed is caught here, as an MCP tool list is.
      await withTimeout(this.load(), timeoutMs);
      return { ok: true, latencyMs: performance.now() - started };
    } catch (e) {
      return { ok: false, latencyMs: performance.now() - started, error: this.fail(e, 'card check').message };
    }
  }

  prepare(): PreparedStatement {
    throw new ConnectorError('INVALID_PARAMS', `an a2a connector has no queries: call its tool ${SEND_MESSAGE}`, {
      connector: this.name,
    });
  }

  query(): Promise<QueryResult> {
    return Promise.reject(this.prepare());
  }

  async execute(tool: string, params: Record<string, unknown>, limits: EffectiveLimits): Promise<ToolResult> {
    if (tool !== SEND_MESSAGE)
      throw new ConnectorError('OPERATION_NOT_ALLOWED', `no tool ${tool} on a2a connector ${this.name}`, {
        connector: this.name,
        reason: 'UNKNOWN_TOOL',
      });
    const sdk = await loadSdk();
    const message = messageOf(sdk, params);
    const session = await this.session();
    this.admit(tool);
    const started = performance.now();
    const span = startRemoteAgentSpan({ agent: session.card.name, connector: this.name, url: session.url });
    const controller = new AbortController();
    const reading = new TaskReading(limits.maxResultBytes, this.name);
    try {
      await withSpan(span, () =>
        withTimeout(this.exchange(sdk, session, message, reading, controller.signal), limits.timeoutMs, () => {
          controller.abort();
          return this.cancel(session, reading.taskId);
        }),
      );
      const failed = reading.failure();
      if (failed) throw failed;
      endSpan(span);
      return toolResult(reading.result(), started, limits);
    } catch (e) {
      const err = this.fail(e, 'message');
      endSpan(span, err.code, err.message);
      throw err;
    }
  }

  /** Sends the message and reads the task to its end: streamed, or sent and then polled. */
  private async exchange(sdk: Sdk, s: Session, message: Message, reading: TaskReading, signal: AbortSignal) {
    const request = {
      tenant: '',
      message,
      configuration: {
        acceptedOutputModes: ['text/plain', 'application/json'],
        taskPushNotificationConfig: undefined,
        historyLength: 0,
        returnImmediately: false,
      },
      metadata: undefined,
    };
    if (s.card.capabilities?.streaming) {
      for await (const event of s.client.sendMessageStream(request, { signal })) reading.event(sdk, event);
      return;
    }
    reading.answer(sdk, await s.client.sendMessage(request, { signal }));
    while (reading.taskId && !reading.settled()) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      signal.throwIfAborted();
      reading.task(sdk, await s.client.getTask({ tenant: '', id: reading.taskId, historyLength: 0 }, { signal }));
    }
  }

  /** Cancels a task the call no longer waits for (best effort: the caller's timeout is the answer either way). */
  private async cancel(s: Session, taskId: string | undefined): Promise<void> {
    if (!taskId) return;
    await withTimeout(s.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }), 2000).catch(
      () => undefined,
    );
  }

  /** The verified session, read first when there is none (with back-off after a failed read). */
  private session(): Promise<Session> {
    if (this.current) return Promise.resolve(this.current);
    if (!this.loading && !this.backoff.ready())
      return Promise.reject(
        this.refusal ??
          new ConnectorError('CONNECTOR_UNAVAILABLE', `the card of a2a connector ${this.name} could not be read`, {
            connector: this.name,
          }),
      );
    return this.load();
  }

  /** Reads the card, verifies it, holds it against its pin, and (when it changed) makes a new client from it. */
  private load(): Promise<Session> {
    this.loading ??= this.read().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async read(): Promise<Session> {
    const sdk = await loadSdk();
    let wire: unknown;
    try {
      wire = await this.fetchCard();
    } catch (e) {
      this.backoff.failed();
      throw this.fail(e, 'card read');
    }
    let verified;
    try {
      verified = await this.trust.verify(wire, (card) => sdk.canonicalizeAgentCard(card as AgentCard));
    } catch (e) {
      // NB: fail closed: a card that does not verify drops the client, so no call reaches the agent.
      this.current = undefined;
      this.refusal = isConnectorError(e) ? e : this.fail(e, 'card check');
      this.backoff.failed();
      throw this.refusal;
    }
    this.refusal = undefined;
    const canonical = JSON.parse(verified.canonical) as Record<string, unknown>;
    await this.gate?.listed([
      {
        name: SEND_MESSAGE,
        description: String(canonical.description ?? ''),
        // NB: the whole card is in the pinned definition, so that any change to it (an interface, a skill) holds it.
        inputSchema: { ...SEND_SCHEMA, 'x-a2a-card': canonical },
      },
    ]);
    if (this.current?.canonical === verified.canonical) {
      this.backoff.succeeded();
      return this.current;
    }
    const card = sdk.AgentCard.fromJSON(canonical);
    const url = this.allowedInterfaces(card);
    const fetchImpl = this.fetchWithHeaders();
    const factory = new sdk.ClientFactory({
      transports: [new sdk.JsonRpcTransportFactory({ fetchImpl }), new sdk.RestTransportFactory({ fetchImpl })],
    });
    const client = await factory.createFromAgentCard(card);
    this.current = { card, canonical: verified.canonical, client, url };
    this.backoff.succeeded();
    return this.current;
  }

  private async fetchCard(): Promise<unknown> {
    const controller = new AbortController();
    const res = await withTimeout(
      this.http.request(this.cardUrl, {
        method: 'GET',
        headers: { accept: 'application/json', ...this.options.headers, ...this.auth },
        signal: controller.signal,
        maxBytes: CARD_MAX_BYTES,
      }),
      this.options.timeoutMs,
      () => controller.abort(),
    );
    if (res.status !== 200)
      throw new ConnectorError('CONNECTOR_UNAVAILABLE', `the agent card answered ${res.status}`, {
        connector: this.name,
        reason: `HTTP_${res.status}`,
      });
    try {
      return JSON.parse(res.body.toString('utf8')) as unknown;
    } catch {
      throw new ConnectorError('A2A_CARD_UNVERIFIED', `the Agent Card of connector ${this.name} is not JSON`, {
        connector: this.name,
        reason: 'UNREADABLE',
      });
    }
  }

  /**
   * Keeps the card's interfaces the SSRF guard allows (the card's origin, below the agent's base path), in the card's
   * order; none left refuses the card. Answers the first one's URL.
   */
  private allowedInterfaces(card: AgentCard): URL {
    let refused: unknown;
    card.supportedInterfaces = card.supportedInterfaces.filter((i) => {
      try {
        this.http.resolve(i.url);
        return true;
      } catch (e) {
        refused ??= e;
        return false;
      }
    });
    const first = card.supportedInterfaces[0];
    if (!first)
      throw (
        refused ??
        new ConnectorError('A2A_CARD_UNVERIFIED', 'the Agent Card names no interface', { reason: 'UNREADABLE' })
      );
    return new URL(first.url);
  }

  /** The guarded fetch with the connector's headers, its credentials and the active trace's context on every request. */
  private fetchWithHeaders(): typeof fetch {
    const extra = { ...this.options.headers, ...this.auth };
    return (async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      for (const [k, v] of Object.entries(traceHeaders<Record<string, string>>({ ...extra })))
        if (!headers.has(k)) headers.set(k, v);
      return this.http.fetch(input instanceof Request ? input.url : input, { ...init, headers });
    }) as typeof fetch;
  }

  tools(): ToolDescription[] {
    const s = this.current;
    if (!s) return [];
    const skills = s.card.skills.map((k) => k.name || k.id).filter(Boolean);
    return [
      {
        name: SEND_MESSAGE,
        description: `Send a message to the A2A agent ${s.card.name}: ${s.card.description}${
          skills.length ? ` (skills: ${skills.join(', ')})` : ''
        }`,
        inputSchema: SEND_SCHEMA as unknown as Record<string, unknown>,
        writes: false,
        ...(this.gate && !this.gate.approved(SEND_MESSAGE) ? { held: true } : {}),
      },
    ];
  }

  admit(tool: string): void {
    this.gate?.admit(tool);
  }

  async close(): Promise<void> {
    this.current = undefined;
    await Promise.all([this.http.close(), this.keysHttp?.close()]);
  }
}

let sdkLoaded: Promise<Sdk> | undefined;
/** The SDK (its types' codecs and its client), loaded with the first a2a connector. */
function loadSdk(): Promise<Sdk> {
  sdkLoaded ??= Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/client')]).then(([root, client]) => ({
    ...root,
    ...client,
  }));
  return sdkLoaded;
}

/**
 * Where the card is and what the agent's base path is: a URL ending in `.json` is the card (its base is the folder
 * above `/.well-known/`, or the card's own folder); any other URL is the agent's base, with the card below it.
 */
export function cardLocation(url: string): { base: string; card: URL } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'connection URL does not parse');
  }
  if (u.pathname.endsWith('.json')) {
    const base = new URL(u.href);
    base.search = '';
    base.pathname = u.pathname.endsWith(`/${CARD_PATH}`)
      ? u.pathname.slice(0, -CARD_PATH.length)
      : u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1);
    return { base: base.href, card: u };
  }
  const base = new URL(u.href);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return { base: base.href, card: new URL(CARD_PATH, base) };
}

/** The user message of a call's params: `text` and/or `data`, with the context and task it continues. */
function messageOf(sdk: Sdk, params: Record<string, unknown>): Message {
  const { text, data, context_id: contextId, task_id: taskId } = params;
  const bad = (why: string) =>
    new ConnectorError('INVALID_PARAMS', `${SEND_MESSAGE}: ${why}`, { reason: 'INVALID_MESSAGE' });
  if (text !== undefined && typeof text !== 'string') throw bad('text must be a string');
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data)))
    throw bad('data must be an object');
  if (contextId !== undefined && typeof contextId !== 'string') throw bad('context_id must be a string');
  if (taskId !== undefined && typeof taskId !== 'string') throw bad('task_id must be a string');
  const parts: Record<string, unknown>[] = [];
  if (typeof text === 'string' && text.length > 0) parts.push({ text });
  if (data !== undefined) parts.push({ data });
  if (parts.length === 0) throw bad('give text or data');
  return sdk.Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(contextId ? { contextId } : {}),
    ...(taskId ? { taskId } : {}),
  });
}

/** A task as its events and answers arrive: its state, its artifacts (appended chunks joined), its last status text. */
class TaskReading {
  taskId: string | undefined;
  private contextId: string | undefined;
  private state: StateName = 'submitted';
  private statusText = '';
  /** The answer when the agent answered with a message rather than a task. */
  private reply: Part[] | undefined;
  private readonly artifacts = new Map<string, { name: string; parts: Part[] }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly connector: string,
  ) {}

  answer(sdk: Sdk, a: Message | Task): void {
    if ('messageId' in a) this.message(a);
    else this.task(sdk, a);
  }

  event(sdk: Sdk, e: StreamResponse): void {
    const p = e.payload;
    if (!p) return;
    if (p.$case === 'task') this.task(sdk, p.value);
    else if (p.$case === 'message') this.message(p.value);
    else if (p.$case === 'statusUpdate') {
      this.taskId ??= p.value.taskId;
      this.contextId ??= p.value.contextId;
      this.status(sdk, p.value.status);
    } else if (p.$case === 'artifactUpdate') {
      this.taskId ??= p.value.taskId;
      const a = p.value.artifact;
      if (!a) return;
      const before = this.artifacts.get(a.artifactId);
      const parts = p.value.append && before ? [...before.parts, ...a.parts] : a.parts;
      this.count(a.parts);
      this.artifacts.set(a.artifactId, { name: a.name || before?.name || '', parts });
    }
  }

  task(sdk: Sdk, t: Task): void {
    this.taskId = t.id;
    this.contextId = t.contextId;
    this.status(sdk, t.status);
    if (t.artifacts.length > 0) {
      this.artifacts.clear();
      this.bytes = 0;
      for (const a of t.artifacts) {
        this.count(a.parts);
        this.artifacts.set(a.artifactId, { name: a.name, parts: a.parts });
      }
    }
  }

  private message(m: Message): void {
    this.contextId = m.contextId || this.contextId;
    this.count(m.parts);
    this.reply = m.parts;
    this.state = 'completed';
  }

  private status(sdk: Sdk, s: Task['status']): void {
    if (!s) return;
    this.state = sdk
      .taskStateToJSON(s.state)
      .replace(/^TASK_STATE_/, '')
      .toLowerCase();
    if (s.message) this.statusText = textOf(s.message.parts);
  }

  /** Whether the task stopped: ended, or waits for input or authorisation. */
  settled(): boolean {
    return ['completed', 'failed', 'canceled', 'rejected', 'input_required', 'auth_required'].includes(this.state);
  }

  /** A task that failed, was rejected or cancelled: the call fails with the agent's words (bounded). */
  failure(): ConnectorError | undefined {
    if (!['failed', 'rejected', 'canceled'].includes(this.state)) {
      if (this.settled()) return undefined;
      return new ConnectorError('CONNECTOR_QUERY_FAILED', `the remote task ended in state ${this.state}`, {
        connector: this.connector,
        reason: 'TASK_UNFINISHED',
      });
    }
    const said = this.statusText ? `: ${clip(redactValue(this.statusText, {}) as string)}` : '';
    return new ConnectorError('CONNECTOR_QUERY_FAILED', `the remote agent's task was ${this.state}${said}`, {
      connector: this.connector,
      reason: `TASK_${this.state.toUpperCase()}`,
    });
  }

  /**
   * The answer: `text`, the text parts of every artifact (or of the agent's message) joined; `artifacts`, each with
   * its other parts (data, url, raw). NB: a text is in the answer once, so that output redaction counts it once.
   */
  result(): Record<string, unknown> {
    const others = (parts: readonly Part[]) => parts.filter((p) => p.content?.$case !== 'text').map(wirePart);
    const artifacts = [...this.artifacts].map(([id, a]) => ({ artifact_id: id, name: a.name, parts: others(a.parts) }));
    const text = this.reply ? textOf(this.reply) : [...this.artifacts.values()].map((a) => textOf(a.parts)).join('\n');
    return {
      ...(this.taskId ? { task_id: this.taskId } : {}),
      ...(this.contextId ? { context_id: this.contextId } : {}),
      state: this.state,
      text,
      artifacts,
      ...(this.statusText ? { status_message: this.statusText } : {}),
      ...(this.reply ? { message: { parts: others(this.reply) } } : {}),
    };
  }

  private count(parts: readonly Part[]): void {
    for (const p of parts) this.bytes += Buffer.byteLength(JSON.stringify(wirePart(p)));
    if (this.bytes > this.maxBytes)
      throw new ConnectorError('RESULT_TOO_LARGE', `the remote agent's answer is larger than ${this.maxBytes} bytes`, {
        connector: this.connector,
      });
  }
}

/** A part as the result shows it: `{text}`, `{data}`, `{url}` or `{raw}` (base64), with its media type. */
function wirePart(p: Part): Record<string, unknown> {
  const c = p.content;
  const media = p.mediaType ? { media_type: p.mediaType } : {};
  if (!c) return media;
  if (c.$case === 'text') return { text: c.value, ...media };
  if (c.$case === 'data') return { data: c.value, ...media };
  if (c.$case === 'url') return { url: c.value, ...media };
  return { raw: Buffer.from(c.value).toString('base64'), ...media };
}

const textOf = (parts: readonly Part[]) =>
  parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const clip = (s: string) => (s.length > STATUS_TEXT_CHARS ? `${s.slice(0, STATUS_TEXT_CHARS - 1)}…` : s);
