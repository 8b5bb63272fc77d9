/**
 * Discovery documents: the legacy form (/api, /apis, /apis/<group>, per group-version APIResourceList)
 * and the aggregated form (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) that kubectl and client-go ask
 * for first through the Accept header. Both are rebuilt from the registry on every request, so a CRD is
 * discoverable the moment it is stored.
 */
import { createHash } from 'node:crypto';
import { sortVersions, type Registry, type ResourceType } from './registry.js';
import type { JsonObject } from './schema/types.js';

export const SUB_VERBS = ['get', 'patch', 'update'];

export function serverVersion(): JsonObject {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-steward',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-12-11T00:00:00Z',
    goVersion: 'go1.23.4',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

function storageVersionHash(t: ResourceType): string {
  return createHash('sha256')
    .update(`${t.group}/${t.storageApiVersion}/${t.kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

function gv(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(g: { name: string; versions: string[]; preferred: string }): JsonObject {
  return {
    name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: gv(g.name, v), version: v })),
    preferredVersion: { groupVersion: gv(g.name, g.preferred), version: g.preferred },
  };
}

export function apiGroupList(reg: Registry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: reg
      .groups()
      .filter((g) => g.name !== '')
      .map(apiGroup),
  };
}

export function apiGroupDoc(reg: Registry, group: string): JsonObject | undefined {
  const g = reg.groups().find((x) => x.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) } : undefined;
}

function typesIn(reg: Registry, group: string, version: string): ResourceType[] {
  return reg.all().filter((t) => t.group === group && t.version === version);
}

export function apiResourceList(reg: Registry, group: string, version: string): JsonObject | undefined {
  const types = typesIn(reg, group, version);
  if (types.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const t of types) {
    const r: JsonObject = {
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
    };
    if (t.shortNames.length) r.shortNames = t.shortNames;
    if (t.categories.length) r.categories = t.categories;
    r.storageVersionHash = storageVersionHash(t);
    resources.push(r);
    if (t.subresources.log)
      resources.push({
        name: `${t.resource}/log`,
        singularName: '',
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ['get'],
      });
    if (t.subresources.scale) {
      resources.push({
        name: `${t.resource}/scale`,
        singularName: '',
        namespaced: t.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: SUB_VERBS,
      });
    }
    if (t.subresources.status)
      resources.push({
        name: `${t.resource}/status`,
        singularName: '',
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: SUB_VERBS,
      });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv(group, version), resources };
}

function discoveryResource(t: ResourceType): JsonObject {
  const r: JsonObject = {
    resource: t.resource,
    responseKind: { group: t.group, version: t.version, kind: t.kind },
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: t.verbs,
  };
  if (t.shortNames.length) r.shortNames = t.shortNames;
  if (t.categories.length) r.categories = t.categories;
  const subs: JsonObject[] = [];
  if (t.subresources.log)
    subs.push({
      subresource: 'log',
      responseKind: { group: t.group, version: t.version, kind: t.kind },
      verbs: ['get'],
    });
  if (t.subresources.scale)
    subs.push({
      subresource: 'scale',
      responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      verbs: SUB_VERBS,
    });
  if (t.subresources.status)
    subs.push({
      subresource: 'status',
      responseKind: { group: t.group, version: t.version, kind: t.kind },
      verbs: SUB_VERBS,
    });
  if (subs.length) r.subresources = subs;
  return r;
}

/** The aggregated document for /api (core: `core` true) or /apis. */
export function aggregatedDiscovery(reg: Registry, core: boolean, apiVersion: string): JsonObject {
  const items = reg
    .groups()
    .filter((g) => (core ? g.name === '' : g.name !== ''))
    .map((g) => {
      // Preferred version first, then by Kubernetes version priority.
      const versions = [g.preferred, ...sortVersions(g.versions).filter((v) => v !== g.preferred)];
      const metadata: JsonObject = { creationTimestamp: null };
      if (g.name) metadata.name = g.name;
      return {
        metadata,
        versions: versions.map((v) => ({
          version: v,
          resources: typesIn(reg, g.name, v).map(discoveryResource),
          freshness: 'Current',
        })),
      };
    });
  return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
}

/** Which aggregated discovery version the Accept header asks for, if any. */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(',')) {
    const params = new Map(
      part
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    if (params.get('as') === 'APIGroupDiscoveryList' && params.get('g') === 'apidiscovery.k8s.io') {
      const v = params.get('v');
      if (v === 'v2' || v === 'v2beta1') return v;
    }
  }
  return undefined;
}
