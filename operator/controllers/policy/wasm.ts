/**
 * The operator's checks of a wasm Policy's bundle: there (bundleBase64, or the key of the ConfigMap `configMapRef`
 * names, in the Policy's namespace), base64, and a wasm module or a `.tar.gz` bundle by its first bytes. The
 * gateways load and run it (runtime/policy/wasm.ts); the operator compiles nothing. Pure: the reconciler gathers.
 */
import { Reason } from '../../../api/conditions.js';
import type { PolicySpec } from '../../../api/policy.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import type { Cache } from '../../manager/types.js';
import { Resources } from '../../../platform/kube/resources.js';
import { policies } from '../parse.js';

/** What the reconciler read for `spec.wasm.configMapRef`: the ConfigMap's maps, or null when it does not exist. */
export type ConfigMapFacts = { data?: Record<string, string>; binaryData?: Record<string, string> } | null;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why the bundle cannot be used, with the reason for `Compiled`; undefined when it looks like one. */
export function wasmProblem(
  wasm: NonNullable<PolicySpec['wasm']>,
  configMap: ConfigMapFacts | undefined,
): { reason: string; message: string } | undefined {
  const failed = (message: string) => ({ reason: 'CompileFailed', message });
  if (wasm.bundleBase64 !== undefined) return bytesProblem('spec.wasm.bundleBase64', wasm.bundleBase64);
  const ref = wasm.configMapRef;
  if (!ref) return failed('spec.wasm needs bundleBase64 or configMapRef');
  // NB: undefined: not gathered (callers that only judge the spec); null: gathered, and absent.
  if (configMap === undefined) return undefined;
  const missing = (message: string) => ({ reason: Reason.ConfigMapMissing, message });
  if (configMap === null) return missing(`spec.wasm.configMapRef: ConfigMap ${ref.name} not found in the namespace`);
  const value = configMap.binaryData?.[ref.key] ?? configMap.data?.[ref.key];
  if (value === undefined)
    return missing(`spec.wasm.configMapRef: ConfigMap ${ref.name} has no key ${ref.key} in binaryData or data`);
  return bytesProblem(`spec.wasm.configMapRef: ConfigMap ${ref.name} key ${ref.key}`, value);
}

function bytesProblem(what: string, text: string): { reason: string; message: string } | undefined {
  const b64 = text.replace(/\s+/g, '');
  if (b64 === '' || b64.length % 4 !== 0 || !BASE64.test(b64))
    return { reason: 'CompileFailed', message: `${what} is not base64` };
  const b = Buffer.from(b64.slice(0, 8), 'base64');
  const wasm = b[0] === 0x00 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d;
  const gzip = b[0] === 0x1f && b[1] === 0x8b;
  if (!wasm && !gzip) return { reason: 'CompileFailed', message: `${what} is not a wasm module or a .tar.gz bundle` };
  return undefined;
}

/** The ConfigMap a Policy's wasm bundle is in, as the cache holds it (null: absent); undefined when it names none. */
export function configMapFacts(cache: Cache, spec: PolicySpec, namespace: string): ConfigMapFacts | undefined {
  const ref = spec.wasm?.configMapRef;
  if (!ref || spec.wasm?.bundleBase64 !== undefined) return undefined;
  const cm = cache.get<KubeObject & NonNullable<ConfigMapFacts>>(Resources.ConfigMap, namespace, ref.name);
  return cm ? { data: cm.data, binaryData: cm.binaryData } : null;
}

/** The ConfigMap a Policy's wasm bundle is in (the per-name selection of the Policy controller). */
export const configMapOfPolicy = (obj: KubeObject): string[] =>
  policies.parseAll([obj]).flatMap((p) => (p.spec.wasm?.configMapRef ? [p.spec.wasm.configMapRef.name] : []));

/** Watch map: the Policies of the ConfigMap's namespace whose wasm bundle it holds. */
export const policiesOfConfigMap =
  (cache: Cache) =>
  (configMap: KubeObject): string[] =>
    policies
      .parseAll(cache.list(Resources.Policy, configMap.metadata.namespace))
      .filter((p) => p.spec.wasm?.configMapRef?.name === configMap.metadata.name)
      .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
