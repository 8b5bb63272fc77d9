/**
 * Typed views of cached objects: the spec parsed by the api/ schema, so that defaults the API server did not
 * apply (an object stored before a default was added) read the same as in the runtimes.
 */
import type { z } from 'zod';
import { agentConfigSpec } from '../../api/agentconfig.js';
import { connectorSpec } from '../../api/connector.js';
import { licenseSpec } from '../../api/license.js';
import { orchestratorSpec } from '../../api/orchestrator.js';
import { policySpec } from '../../api/policy.js';
import type {
  AgentConfigResource,
  ConnectorResource,
  LicenseResource,
  OrchestratorResource,
  PolicyResource,
} from '../../api/resources.js';
import type { KubeObject } from '../../platform/kube/client.js';
import { TerminalError } from '../manager/types.js';

function parser<R>(schema: z.ZodTypeAny, kind: string) {
  // NB: cached objects are replaced, never changed, on every watch event, so a parse is kept per object: a
  // reconcile that looks at every AgentConfig of a namespace (the node cap) does not parse them all again.
  const memo = new WeakMap<KubeObject, { ok: true; value: R } | { ok: false; message: string }>();
  const view = (obj: KubeObject) => {
    let v = memo.get(obj);
    if (!v) {
      const r = schema.safeParse(obj.spec ?? {});
      v = r.success
        ? { ok: true, value: { ...obj, spec: r.data } as unknown as R }
        : { ok: false, message: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
      memo.set(obj, v);
    }
    return v;
  };
  /** The typed object; a TerminalError when the spec does not match the schema (only an edit can fix it). */
  const parse = (obj: KubeObject): R => {
    const v = view(obj);
    if (!v.ok)
      throw new TerminalError(`${kind} ${obj.metadata.namespace}/${obj.metadata.name}: invalid spec: ${v.message}`);
    return v.value;
  };
  /** Every object whose spec parses; the others are their own controller's problem. */
  const parseAll = (objs: readonly KubeObject[]): R[] =>
    objs.flatMap((o) => {
      const v = view(o);
      return v.ok ? [v.value] : [];
    });
  return { parse, parseAll };
}

export const orchestrators = parser<OrchestratorResource>(orchestratorSpec, 'Orchestrator');
export const agentConfigs = parser<AgentConfigResource>(agentConfigSpec, 'AgentConfig');
export const policies = parser<PolicyResource>(policySpec, 'Policy');
export const connectors = parser<ConnectorResource>(connectorSpec, 'Connector');
export const licenses = parser<LicenseResource>(licenseSpec, 'License');
