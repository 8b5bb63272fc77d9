/**
 * Pod volumes as folders: emptyDir, secret and configMap volumes under the pod's folder, and per
 * container a root (`STEWARD_POD_ROOT`) where each mountPath is a symlink to its volume — processes
 * cannot chroot, so `/etc/x` is found at `$STEWARD_POD_ROOT/etc/x`.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isObject, type JsonObject } from '../schema/types.js';
import { EnvError } from './env.js';

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});
const a = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface VolumeSources {
  secret(name: string): JsonObject | undefined;
  configMap(name: string): JsonObject | undefined;
}

function files(source: JsonObject, secret: boolean, items: unknown[]): Map<string, Buffer> {
  const all = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(o(source.data)))
    all.set(k, secret ? Buffer.from(String(v), 'base64') : Buffer.from(String(v)));
  for (const [k, v] of Object.entries(o(source.binaryData))) all.set(k, Buffer.from(String(v), 'base64'));
  if (items.length === 0) return all;
  const out = new Map<string, Buffer>();
  for (const it of items.map(o)) {
    const data = all.get(String(it.key));
    if (data === undefined) throw new EnvError(`couldn't find key ${String(it.key)} for volume`);
    out.set(String(it.path ?? it.key), data);
  }
  return out;
}

/** Writes every supported volume of `pod` under `podDir/volumes/NAME`. */
export async function materialiseVolumes(podDir: string, pod: JsonObject, src: VolumeSources): Promise<void> {
  for (const v of a(o(pod.spec).volumes).map(o)) {
    const dir = join(podDir, 'volumes', String(v.name));
    await mkdir(dir, { recursive: true });
    const secret = isObject(v.secret);
    if (!secret && !isObject(v.configMap)) continue;
    const ref = o(secret ? v.secret : v.configMap);
    const name = String((secret ? ref.secretName : ref.name) ?? '');
    const source = secret ? src.secret(name) : src.configMap(name);
    if (!source) {
      if (ref.optional === true) continue;
      throw new EnvError(`${secret ? 'secret' : 'configmap'} "${name}" not found`);
    }
    for (const [path, data] of files(source, secret, a(ref.items))) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), data);
    }
  }
}

/** Where a pod's service account appears, as a real kubelet mounts it (the kube-api-access volume). */
export const SERVICE_ACCOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const SERVICE_ACCOUNT_VOLUME = 'kube-api-access';

/** Writes the service account's token, namespace and CA certificate as the pod's `kube-api-access` volume. */
export async function materialiseServiceAccount(
  podDir: string,
  namespace: string,
  sa: { token: string; caCert?: string },
): Promise<void> {
  const dir = join(podDir, 'volumes', SERVICE_ACCOUNT_VOLUME);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'token'), sa.token);
  await writeFile(join(dir, 'namespace'), namespace);
  if (sa.caCert) await writeFile(join(dir, 'ca.crt'), sa.caCert);
}

/**
 * Builds `podDir/roots/CONTAINER` with a symlink per volumeMount (and the service account's, unless the
 * container mounts something there itself); returns that root.
 */
export async function containerRoot(
  podDir: string,
  container: JsonObject,
  mountServiceAccount = false,
): Promise<string> {
  const root = join(podDir, 'roots', String(container.name));
  await mkdir(root, { recursive: true });
  const mounts = a(container.volumeMounts).map(o);
  if (mountServiceAccount && !mounts.some((m) => m.mountPath === SERVICE_ACCOUNT_PATH)) {
    mounts.push({ name: SERVICE_ACCOUNT_VOLUME, mountPath: SERVICE_ACCOUNT_PATH });
  }
  for (const m of mounts) {
    const target = join(podDir, 'volumes', String(m.name), String(m.subPath ?? ''));
    const at = join(root, String(m.mountPath));
    await mkdir(dirname(at), { recursive: true });
    await mkdir(target, { recursive: true }).catch(() => {});
    await symlink(target, at).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return root;
}
