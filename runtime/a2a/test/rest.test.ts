/**
 * A2A's HTTP+JSON binding and push notifications through real sockets, with the official SDK as the client (forced
 * to HTTP+JSON): a streamed message whose artifact arrives masked, GetTask and ListTasks, the tenant rule, the
 * version rule, and a task's completion delivered to a receiver as a signed webhook carrying the A2A token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListTasksRequest, SendMessageConfiguration, StreamResponse, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentConfigYaml,
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../testing/gateway.js';
import type { FakeOpenAiServer } from '../../../testing/llm/index.js';
import { waitUntil } from '../../../testing/eventually.js';
import { a2aClient, startA2aGateway, userMessage, type A2aGateway } from '../../../testing/a2a.js';
import { signBody, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../orchestrator/webhooks/index.js';

let world: A2aGateway;
let openai: FakeOpenAiServer;
let gw: TestGateway;
let orchestrator: TestOrchestrator;
let apiKey: string;
let tenantKey: string;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  world = await startA2aGateway({ STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  ({ openai, gw, apiKey, tenantKey } = world);
  // The orchestrator beside it, as standalone runs it: its delivery worker sends what the gateway queues.
  orchestrator = await startTestOrchestrator(gw, { webhooks: { allowPrivateTargets: true, pollIntervalMs: 50 } });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await orchestrator?.close();
  await world?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const agentUrl = () => world.agentUrl;
/** An SDK client of the agent over HTTP+JSON only, presenting `key`. */
const restClient = (key: string) => a2aClient(agentUrl(), key, 'HTTP+JSON');

describe('the HTTP+JSON binding', () => {
  it('streams the answer with a card number masked, then answers GetTask and ListTasks', async () => {
    openai.enqueue({ kind: 'reply', chunks: ['Your card ', '4111 1111 1111 1111', ' is on file.'] });
    const client = await restClient(apiKey);
    const seen: string[] = [];
    const sent = client.sendMessageStream({
      tenant: '',
      message: userMessage('Which card do I have on file?'),
      configuration: undefined,
      metadata: undefined,
    });
    let taskId = '';
    let text = '';
    for await (const ev of sent) {
      seen.push(ev.payload?.$case ?? '');
      if (ev.payload?.$case === 'task') taskId = ev.payload.value.id;
      if (ev.payload?.$case === 'artifactUpdate')
        for (const p of ev.payload.value.artifact?.parts ?? [])
          if (p.content?.$case === 'text') text += p.content.value;
    }
    expect(seen).toContain('artifactUpdate');
    expect(text).not.toContain('4111 1111 1111 1111');
    expect(text).toMatch(/Your card .*is on file\./);

    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const page = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 10 }));
    expect(page.tasks.map((t) => t.id)).toContain(taskId);
    await expect(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toThrow(
      /not found/i,
    );
  });

  it("takes A2A's own media type, application/a2a+json, as JSON", async () => {
    openai.enqueue({ kind: 'reply', text: 'typed answer' });
    const res = await fetch(`${agentUrl()}message:send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'a2a-version': '1.0', 'content-type': 'application/a2a+json' },
      body: JSON.stringify({ message: { messageId: 'm-typed', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
    });
    expect(res.status).toBe(200);
    const { task } = (await res.json()) as { task: { artifacts: { parts: { text?: string }[] }[] } };
    expect(task.artifacts.flatMap((a) => a.parts.map((p) => p.text)).join('')).toBe('typed answer');
  });

  it('answers 403 to a key bound to one tenant that names another in the path, and takes its own', async () => {
    const list = (tenant: string) =>
      fetch(`${agentUrl()}${tenant}/tasks?pageSize=5`, {
        headers: { authorization: `Bearer ${tenantKey}`, 'a2a-version': '1.0' },
      });
    const other = await list('us');
    expect(other.status).toBe(403);
    expect(((await other.json()) as { code?: string }).code).toBe('FORBIDDEN');
    const own = await list('eu');
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ tasks: [] });
  });

  it('answers a version it does not serve with the binding’s error, and asks for credentials', async () => {
    const old = await fetch(`${agentUrl()}tasks`, {
      headers: { authorization: `Bearer ${apiKey}`, 'a2a-version': '0.3' },
    });
    expect(old.status).toBe(400);
    expect(await old.json()).toMatchObject({
      error: { code: 400, status: 'FAILED_PRECONDITION', details: [{ reason: 'VERSION_NOT_SUPPORTED' }] },
    });
    expect((await fetch(`${agentUrl()}tasks`, { headers: { 'a2a-version': '1.0' } })).status).toBe(401);
  });
});

describe('push notifications', () => {
  it("delivers the task's completion to the config's URL, signed, with the A2A token", async () => {
    openai.enqueue({ kind: 'reply', text: 'pushed answer' });
    const client = await restClient(apiKey);
    const token = 'receiver-chosen-token-0001';
    const result = await client.sendMessage({
      tenant: '',
      message: userMessage('Tell me when you are done.'),
      configuration: SendMessageConfiguration.fromJSON({
        taskPushNotificationConfig: { url: receiverUrl, token },
      }),
      metadata: undefined,
    });
    const taskId = 'id' in result ? result.id : '';
    expect(taskId).not.toBe('');

    const completion = () =>
      received.find((r) => {
        const data = JSON.parse(r.body) as { task?: { id?: string; status?: { state?: string } } };
        return data.task?.id === taskId && data.task.status?.state === 'TASK_STATE_COMPLETED';
      });
    await waitUntil('the completion to be delivered', () => completion() !== undefined);
    const hit = completion()!;
    expect(hit.headers['x-a2a-notification-token']).toBe(token);
    expect(hit.headers['x-steward-event']).toBe('a2a.task');
    // The body is the A2A StreamResponse as it is; Steward's signature, keyed by the token, is over the header's time
    // and the body.
    const body = StreamResponse.fromJSON(JSON.parse(hit.body));
    expect(body.payload?.$case).toBe('task');
    const at = new Date(Number(hit.headers[TIMESTAMP_HEADER]) * 1000);
    expect(hit.headers[SIGNATURE_HEADER]).toBe(signBody(hit.body, token, at).signature);
    // The final status delivers the whole task: its answer artifact, as it streamed.
    const artifacts = (JSON.parse(hit.body) as { task: { artifacts: { parts: { text?: string }[] }[] } }).task
      .artifacts;
    expect(artifacts.flatMap((a) => a.parts.map((p) => p.text)).join('')).toBe('pushed answer');

    // The config is the task's: Get, List and Delete find it.
    const configs = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId,
      pageSize: 0,
      pageToken: '',
    });
    expect(configs.configs.map((c) => c.url)).toEqual([receiverUrl]);
    const id = configs.configs[0]!.id;
    const one = await client.getTaskPushNotificationConfig({ tenant: '', taskId, id });
    expect(one).toMatchObject({ url: receiverUrl, taskId });
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id });
    const after = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' });
    expect(after.configs).toEqual([]);
  });

  it('refuses a config naming a private address without the allowance, with a coded error', async () => {
    const strict = await startTestGateway({
      manifests: agentConfigYaml('helper', 1, { provider: 'openai', model: 'gpt-4o-mini' }),
      env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: openai.baseURL, STEWARD_PUBLIC_URL: 'http://127.0.0.1' },
    });
    try {
      const key = (await strict.store.clients.create({ organizationId: 'acme', name: 'strict' })).apiKey;
      const before = openai.requests.length;
      const res = await strict.app.inject({
        method: 'POST',
        url: '/a2a/agents/helper/message:send',
        headers: { authorization: `Bearer ${key}`, 'a2a-version': '1.0', 'content-type': 'application/json' },
        payload: {
          message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] },
          configuration: { taskPushNotificationConfig: { url: 'http://10.0.0.5/hook', token: 't' } },
        },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: {
          status: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/private/),
          details: [{ metadata: { code: 'INVALID_REQUEST' } }],
        },
      });
      expect(openai.requests.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
