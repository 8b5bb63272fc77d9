/**
 * `/api/v1/policies[/{id}]`: dynamic policies, stored as Policy documents of the declarative source (a file in
 * standalone, a resource in a cluster), so that the gateway's policy engine picks them up as it does any Policy.
 * Each belongs to the caller's organization (verified identity; never the body) and applies to its requests only
 * (document.ts). A body is Rego, or conditions and actions compiled to Rego (forms.ts); the Rego compiles before
 * anything is written.
 *
 * The list's shape: a request that carries `X-Tenant-ID` (older SDKs) gets a bare JSON array; every other request
 * gets `{policies, pagination}`.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { PolicyResource } from '../../../api/index.js';
import type { Identity } from '../../auth/identity.js';
import { identityOf } from '../../auth/plugin.js';
import { mayAccess, tenantsForWrite } from '../../auth/scope.js';
import { ApiError, echo } from '../../http/errors.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import { overlapping, packageOf } from '../../policy/packages.js';
import type { PolicyReports } from '../../policy/reports/index.js';
import { SourceWriteError, type DeclarativeSource } from '../../source/index.js';
import { pageOf, slice } from '../paging.js';
import {
  CREATED_ANNOTATION,
  policyDocument,
  policyScope,
  policyView,
  resourceNameOf,
  UPDATED_ANNOTATION,
} from './document.js';
import { createInput, updateInput } from './forms.js';
import { policyReportOf } from './report.js';

export interface PolicyRouteDeps {
  source: DeclarativeSource;
  /** The counts of `GET /api/v1/policies/{id}/report`, from the operational database. */
  reports: PolicyReports;
  now?: () => Date;
}

const AUTH = { config: { auth: { require: 'any' } as const } };

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
      throw new ApiError(
        'plan',
        'POLICY_PACKAGE_CONFLICT',
        `package ${echo(pkg)} is taken, or nested in or around a package another policy of this scope declares; choose another package`,
        { package: pkg },
      );
    }
    try {
      return (await source.apply(doc)) as PolicyResource;
    } catch (err) {
      if (err instanceof SourceWriteError) {
        throw new ApiError(
          'plan',
          'INVALID_REQUEST',
          `the policy is not a valid Policy document: ${err.issues
            .map((i) => `${i.field}: ${i.message}`)
            .join('; ')
            .slice(0, 300)}`,
        );
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
    const identity = identityOf(req);
    const input = createInput(req.body, (tenants) => tenantsForWrite(identity, tenants, 'plan'));
    if (source.get('Policy', resourceNameOf(identity.organizationId, input.id))) {
      // NB: the policy in the way may be another tenant's: its name is not disclosed
      const id = echo(input.id);
      const derived = input.id === input.name ? '' : ` (the id of the name ${JSON.stringify(echo(input.name))})`;
      const message = `a policy with the id ${id}${derived} already exists in this organization; choose another name, or PUT /api/v1/policies/${id} changes it`;
      throw new ApiError('plan', 'POLICY_EXISTS', message, { id: input.id });
    }
    const doc = policyDocument(identity.organizationId, input);
    const at = isoTimestamp(now());
    doc.metadata.annotations = { ...doc.metadata.annotations, [CREATED_ANNOTATION]: at, [UPDATED_ANNOTATION]: at };
    const view = policyView(await write(doc));
    // NB: older SDKs read the created policy at the top level, newer ones under `policy`: both.
    return reply.code(201).send({ ...view, policy: view });
  });

  app.get<{ Params: { name: string } }>('/api/v1/policies/:name', AUTH, async (req) =>
    policyView(owned(req, req.params.name)),
  );

  app.get<{ Params: { name: string } }>('/api/v1/policies/:name/report', AUTH, async (req) =>
    policyReportOf(deps.reports, owned(req, req.params.name), identityOf(req), now()),
  );

  app.put<{ Params: { name: string } }>('/api/v1/policies/:name', AUTH, async (req) => {
    const identity = identityOf(req);
    const existing = owned(req, req.params.name);
    const input = updateInput(existing, req.body, (tenants) => tenantsForWrite(identity, tenants, 'plan'));
    const doc = policyDocument(identity.organizationId, input);
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
