/**
 * `/api/v1/policies[/{name}]`: dynamic policies, stored as Policy documents of the declarative source (a file in
 * standalone, a resource in a cluster), so that the gateway's policy engine picks them up as it does any Policy.
 * Each belongs to the caller's organization (verified identity; never the body) and applies to its requests only
 * (document.ts). The Rego compiles before anything is written: a 400 names the line and column.
 *
 * The list's shape: a request that carries `X-Tenant-ID` (older SDKs) gets a bare JSON array; every other request
 * gets `{policies, pagination}`.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { dynamicPolicy, dynamicPolicyUpdate } from '../../../api/http/orchestrator.js';
import type { PolicyResource } from '../../../api/index.js';
import type { Identity } from '../../auth/identity.js';
import { identityOf } from '../../auth/plugin.js';
import { mayAccess, tenantsForWrite } from '../../auth/scope.js';
import { ApiError, echo } from '../../http/errors.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import { parseBody } from '../../gateway/validation.js';
import { compileError } from '../../policy/module.js';
import { overlapping, packageOf } from '../../policy/packages.js';
import { SourceWriteError, type DeclarativeSource } from '../../source/index.js';
import { pageOf, slice } from '../paging.js';
import { CREATED_ANNOTATION, policyDocument, policyScope, policyView, resourceNameOf, UPDATED_ANNOTATION, type DynamicPolicyInput } from './document.js';

export interface PolicyRouteDeps {
  source: DeclarativeSource;
  now?: () => Date;
}

const AUTH = { config: { auth: { require: 'any' } as const } };

/** 400 with the compile error rendered as `<name>.rego:<line>:<column>`, or nothing when the Rego compiles. */
function checkRego(name: string, rego: string, regoVersion: 'v0' | 'v1' | undefined): void {
  const message = compileError({ name: `${name}.rego`, source: rego, regoVersion: regoVersion ?? 'v1' });
  if (message === undefined) return;
  const at = /\.rego:(\d+):(\d+)/.exec(message);
  throw new ApiError('plan', 'INVALID_REQUEST', `rego does not compile: ${echo(message, 600)}`, {
    fields: [{ field: 'rego', message: echo(message.split('\n')[0]!, 300) }],
    ...(at ? { line: Number(at[1]), column: Number(at[2]) } : {}),
  });
}

/** Whether the caller reaches the document: a dynamic policy of its organization, in its tenant scope. */
function reachable(doc: PolicyResource, identity: Identity): boolean {
  const scope = policyScope(doc);
  return scope !== undefined && mayAccess(identity, scope);
}

export const policyRoutes: FastifyPluginAsync<PolicyRouteDeps> = async (app, deps) => {
  const now = deps.now ?? (() => new Date());
  const { source } = deps;

  const owned = (req: FastifyRequest, name: string): PolicyResource => {
    const identity = identityOf(req);
    const doc = source.get('Policy', resourceNameOf(identity.organizationId, name));
    if (!doc || !reachable(doc, identity)) {
      throw new ApiError('plan', 'POLICY_NOT_FOUND', `policy ${echo(name)} not found`);
    }
    return doc;
  };

  const write = async (doc: PolicyResource) => {
    // NB: the message names no policy: the one in the way may be another organization's built-in-wide document.
    if (overlapping(doc, source.list('Policy'))) {
      const pkg = packageOf(doc)!.join('.');
      throw new ApiError('plan', 'POLICY_PACKAGE_CONFLICT', `package ${echo(pkg)} is taken, or nested in or around a package another policy of this scope declares; choose another package`, { package: pkg });
    }
    try {
      return (await source.apply(doc)) as PolicyResource;
    } catch (err) {
      if (err instanceof SourceWriteError) {
        throw new ApiError('plan', 'INVALID_REQUEST', `the policy is not a valid Policy document: ${err.issues.map((i) => `${i.field}: ${i.message}`).join('; ').slice(0, 300)}`);
      }
      throw err;
    }
  };

  app.get('/api/v1/policies', AUTH, async (req) => {
    const identity = identityOf(req);
    const page = pageOf(req.query as Record<string, unknown>);
    const all = source
      .list('Policy')
      .filter((d) => reachable(d, identity))
      .sort((a, b) => b.spec.priority - a.spec.priority || a.metadata.name.localeCompare(b.metadata.name))
      .map(policyView);
    if (req.headers['x-tenant-id'] !== undefined) return slice(all, page);
    return { policies: slice(all, page), pagination: { page: page.page, page_size: page.pageSize, total: all.length } };
  });

  app.post('/api/v1/policies', AUTH, async (req, reply) => {
    const body = parseBody(dynamicPolicy, req.body) as DynamicPolicyInput;
    const identity = identityOf(req);
    checkRego(body.name, body.rego, body.regoVersion);
    if (source.get('Policy', resourceNameOf(identity.organizationId, body.name))) {
      throw new ApiError('plan', 'POLICY_EXISTS', `policy ${echo(body.name)} already exists; PUT /api/v1/policies/${echo(body.name)} changes it`);
    }
    const tenants = tenantsForWrite(identity, body.scope?.tenants, 'plan');
    const doc = policyDocument(identity.organizationId, { ...body, scope: { ...body.scope, tenants } });
    const at = isoTimestamp(now());
    doc.metadata.annotations = { ...doc.metadata.annotations, [CREATED_ANNOTATION]: at, [UPDATED_ANNOTATION]: at };
    const view = policyView(await write(doc));
    // NB: older SDKs read the created policy at the top level, newer ones under `policy`: both.
    return reply.code(201).send({ ...view, policy: view });
  });

  app.get<{ Params: { name: string } }>('/api/v1/policies/:name', AUTH, async (req) => policyView(owned(req, req.params.name)));

  app.put<{ Params: { name: string } }>('/api/v1/policies/:name', AUTH, async (req) => {
    const identity = identityOf(req);
    const existing = owned(req, req.params.name);
    const patch = parseBody(dynamicPolicyUpdate, req.body);
    const s = existing.spec;
    const merged: DynamicPolicyInput = {
      name: req.params.name,
      type: patch.type ?? s.type,
      priority: patch.priority ?? s.priority,
      enabled: patch.enabled ?? s.enabled,
      // NB: this API writes Rego policies only; a redact policy (no Rego) is not one of its documents
      action: patch.action ?? (s.action === 'redact' ? 'block' : s.action),
      rego: patch.rego ?? s.rego ?? '',
      regoVersion: patch.regoVersion ?? s.regoVersion,
      description: patch.description ?? s.description,
      // NB: a change keeps the policy's tenants unless it names new ones, which the caller's scope must allow
      scope: {
        surfaces: patch.scope ? patch.scope.surfaces : s.scope?.surfaces,
        tenants: patch.scope?.tenants !== undefined ? tenantsForWrite(identity, patch.scope.tenants, 'plan') : s.scope?.tenants,
      },
    };
    checkRego(merged.name, merged.rego, merged.regoVersion);
    const doc = policyDocument(identity.organizationId, merged);
    doc.metadata.annotations = {
      ...doc.metadata.annotations,
      [CREATED_ANNOTATION]: existing.metadata.annotations?.[CREATED_ANNOTATION] ?? isoTimestamp(now()),
      [UPDATED_ANNOTATION]: isoTimestamp(now()),
    };
    const view = policyView(await write(doc));
    return { ...view, policy: view };
  });

  app.delete<{ Params: { name: string } }>('/api/v1/policies/:name', AUTH, async (req) => {
    const doc = owned(req, req.params.name);
    await source.delete('Policy', doc.metadata.name, doc.metadata.namespace);
    return { success: true, name: req.params.name };
  });
};
