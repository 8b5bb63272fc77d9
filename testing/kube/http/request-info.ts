/**
 * Splits a request path the way the apiserver's RequestInfoFactory does:
 * /api/v1/namespaces/ns/pods/name/log → {group '', version v1, namespace ns, resource pods, name, subresource log}.
 */

export type PathKind =
  | { kind: 'root' }
  | { kind: 'version' }
  | { kind: 'api' }
  | { kind: 'apis' }
  | { kind: 'group'; group: string }
  | { kind: 'groupVersion'; group: string; version: string }
  | { kind: 'openapi-v3-root' }
  | { kind: 'openapi-v3'; path: string }
  | { kind: 'openapi-v2' }
  | { kind: 'healthz'; path: string }
  | { kind: 'resource'; info: ResourceRequest }
  | { kind: 'unknown' };

export interface ResourceRequest {
  group: string;
  version: string;
  /** '' for cluster-wide requests on namespaced resources. */
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
}

function seg(parts: string[], i: number): string {
  return parts[i] ?? '';
}

export function parsePath(pathname: string): PathKind {
  const raw = pathname.replace(/\/+$/, '');
  if (raw === '') return { kind: 'root' };
  if (raw === '/version') return { kind: 'version' };
  if (
    raw === '/healthz' ||
    raw === '/readyz' ||
    raw === '/livez' ||
    raw.startsWith('/healthz/') ||
    raw.startsWith('/readyz/') ||
    raw.startsWith('/livez/')
  ) {
    return { kind: 'healthz', path: raw };
  }
  if (raw === '/openapi/v3') return { kind: 'openapi-v3-root' };
  if (raw.startsWith('/openapi/v3/')) return { kind: 'openapi-v3', path: raw.slice('/openapi/v3/'.length) };
  if (raw === '/openapi/v2' || raw === '/swagger.json') return { kind: 'openapi-v2' };
  const parts = raw
    .split('/')
    .slice(1)
    .map((p) => decodeURIComponent(p));
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api') {
    if (parts.length === 1) return { kind: 'api' };
    group = '';
    version = seg(parts, 1);
    rest = parts.slice(2);
    if (rest.length === 0) return { kind: 'groupVersion', group, version };
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) return { kind: 'apis' };
    group = seg(parts, 1);
    if (parts.length === 2) return { kind: 'group', group };
    version = seg(parts, 2);
    rest = parts.slice(3);
    if (rest.length === 0) return { kind: 'groupVersion', group, version };
  } else {
    return { kind: 'unknown' };
  }
  let namespace = '';
  // namespaces/{ns}/{resource}/... ; but namespaces/{name}[/status|finalize] addresses the Namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = seg(rest, 1);
    rest = rest.slice(2);
    if (group === '' && (rest[0] === 'status' || rest[0] === 'finalize') && rest.length === 1) {
      return {
        kind: 'resource',
        info: { group, version, namespace: '', resource: 'namespaces', name: namespace, subresource: rest[0] },
      };
    }
  }
  const info: ResourceRequest = {
    group,
    version,
    namespace,
    resource: seg(rest, 0),
    name: seg(rest, 1),
    subresource: rest.slice(2).join('/'),
  };
  if (!info.resource) return { kind: 'unknown' };
  return { kind: 'resource', info };
}
