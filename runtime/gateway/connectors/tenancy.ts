import type { ConnectorResource } from '../../../api/resources.js';
import { COMMUNITY_ORGANIZATION, type Identity } from '../../auth/identity.js';
import type { DeclarativeSource } from '../../source/index.js';

/**
 * Which organizations a connector serves: `spec.organizations` when the document lists them, else the
 * organizations of the Licenses in the connector's namespace. Only the verified identity decides — never a body
 * field. In community mode (no License) there is one organization and every connector serves it, whether the caller
 * sends no credential or an API key made in that mode (an approver's, say).
 */
export function servesOrganization(doc: ConnectorResource, identity: Identity, source: DeclarativeSource): boolean {
  if (identity.credential === 'community') return true;
  if (identity.tier === 'COMMUNITY' && identity.organizationId === COMMUNITY_ORGANIZATION) return true;
  const listed = doc.spec.organizations;
  if (listed) return listed.includes(identity.organizationId);
  const namespace = doc.metadata.namespace ?? 'default';
  return source.list('License', namespace).some((l) => l.spec.organizationId === identity.organizationId);
}
