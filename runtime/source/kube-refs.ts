/**
 * The objects of the namespace that documents reference by name, followed by informers of their own: Secrets
 * (a Connector's `secretRef`, a License's `keySecretRef`) and ConfigMaps (a Policy's `spec.wasm.configMapRef`).
 * A change of one is a change of every document that references it (`referencedBy`).
 */
import { isDeepStrictEqual } from 'node:util';
import type { AnyResource } from '../../api/index.js';
import {
  Informer,
  Resources,
  type InformerEvent,
  type InformerOptions,
  type KubeClient,
  type KubeObject,
} from '../../platform/kube/index.js';
import type { ConfigMapData } from './types.js';

export type ReferencedKind = 'Secret' | 'ConfigMap';

type DataObject = KubeObject & { data?: Record<string, string>; binaryData?: Record<string, string> };

export interface ReferencedObjectsOptions {
  /** Follow the namespace's Secrets. */
  secrets: boolean;
  /** Told, once both informers have listed, of every change of a Secret's or ConfigMap's data. */
  onChange: (kind: ReferencedKind, name: string) => void;
}

export class ReferencedObjects {
  private readonly secrets: Informer | undefined;
  private readonly configMaps: Informer;

  constructor(
    client: KubeClient,
    private readonly namespace: string,
    informer: InformerOptions,
    private readonly opts: ReferencedObjectsOptions,
  ) {
    if (opts.secrets) {
      this.secrets = new Informer(client, Resources.Secret, informer);
      this.secrets.on((e) => this.changed('Secret', this.secrets!, e));
    }
    this.configMaps = new Informer(client, Resources.ConfigMap, informer);
    this.configMaps.on((e) => this.changed('ConfigMap', this.configMaps, e));
  }

  /** Every informer, started. */
  start(): Informer[] {
    return this.informers().map((i) => i.start());
  }

  informers(): Informer[] {
    return this.secrets ? [this.secrets, this.configMaps] : [this.configMaps];
  }

  /** One key of a Secret of the namespace, decoded; undefined when the Secret or the key is absent. */
  secret(namespace: string, name: string, key: string): string | undefined {
    if (namespace !== this.namespace || !this.secrets) return undefined;
    const value = (this.secrets.get(namespace, name) as DataObject | undefined)?.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  }

  configMap(namespace: string, name: string): ConfigMapData | undefined {
    if (namespace !== this.namespace) return undefined;
    const o = this.configMaps.get(namespace, name) as DataObject | undefined;
    if (!o) return undefined;
    return {
      namespace,
      name,
      data: o.data ?? {},
      binaryData: o.binaryData ?? {},
      version: o.metadata.resourceVersion ?? '',
    };
  }

  private changed(kind: ReferencedKind, informer: Informer, e: InformerEvent<KubeObject>): void {
    // NB: not the first list's events: the documents' first load reads the caches itself.
    if (!informer.hasSynced) return;
    const [now, old] = [e.object as DataObject, e.old as DataObject | undefined];
    if (
      e.type === 'modified' &&
      isDeepStrictEqual(old?.data, now.data) &&
      isDeepStrictEqual(old?.binaryData, now.binaryData)
    )
      return;
    this.opts.onChange(kind, String(e.object.metadata.name));
  }
}

/** Whether the document names the Secret or ConfigMap (of its own namespace). */
export function references(r: AnyResource, kind: ReferencedKind, name: string): boolean {
  if (kind === 'ConfigMap') return r.kind === 'Policy' && r.spec.wasm?.configMapRef?.name === name;
  const ref =
    r.kind === 'Connector'
      ? r.spec.connection.secretRef?.name
      : r.kind === 'License'
        ? r.spec.keySecretRef?.name
        : undefined;
  return ref === name;
}
