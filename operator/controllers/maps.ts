/**
 * Watch maps: which primary keys to reconcile when a related object changes. They read the cache (the same
 * shared informers the reconcilers read), so a Secret change wakes only the resources that reference it.
 */
import { LABELS } from '../../api/constants.js';
import type { KubeObject } from '../../platform/kube/client.js';
import { Resources, type ResourceRef } from '../../platform/kube/resources.js';
import type { Cache } from '../manager/types.js';
import { referencedSecrets } from './env.js';
import { names } from './meta.js';
import { connectors, licenses, orchestrators } from './parse.js';

const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

/** Every object of `ref` in the namespace of `obj`. */
export const allInNamespace =
  (cache: Cache, ref: ResourceRef) =>
  (obj: KubeObject): string[] =>
    cache.list(ref, obj.metadata.namespace).map(key);

/** Orchestrators referencing a License by name (and, for an Orchestrator, those sharing its License). */
export const orchestratorsOfLicense =
  (cache: Cache) =>
  (obj: KubeObject): string[] => {
    const license =
      obj.kind === 'License'
        ? obj.metadata.name
        : (obj.spec as { licenseRef?: { name?: string } } | undefined)?.licenseRef?.name;
    if (license === undefined) return [];
    return orchestrators
      .parseAll(cache.list(Resources.Orchestrator, obj.metadata.namespace))
      .filter((o) => o.spec.licenseRef?.name === license)
      .map(key);
  };

/** Orchestrators whose pods read the Secret (database, redis, LLM keys, TLS). */
export const orchestratorsOfSecret =
  (cache: Cache) =>
  (secret: KubeObject): string[] =>
    orchestrators
      .parseAll(cache.list(Resources.Orchestrator, secret.metadata.namespace))
      .filter((o) => referencedSecrets(o).includes(secret.metadata.name!))
      .map(key);

/** All AgentConfigs of the namespace when the Secret is an Orchestrator's `O-internal` or one its pods read. */
export const agentsOfSecret =
  (cache: Cache) =>
  (secret: KubeObject): string[] => {
    const ns = secret.metadata.namespace;
    const used = orchestrators
      .parseAll(cache.list(Resources.Orchestrator, ns))
      .some(
        (o) =>
          names.internal(o.metadata.name) === secret.metadata.name ||
          referencedSecrets(o).includes(secret.metadata.name!),
      );
    return used ? cache.list(Resources.AgentConfig, ns).map(key) : [];
  };

export const licensesOfSecret =
  (cache: Cache) =>
  (secret: KubeObject): string[] =>
    licenses
      .parseAll(cache.list(Resources.License, secret.metadata.namespace))
      .filter((l) => l.spec.keySecretRef?.name === secret.metadata.name)
      .map(key);

export const connectorsOfSecret =
  (cache: Cache) =>
  (secret: KubeObject): string[] =>
    connectors
      .parseAll(cache.list(Resources.Connector, secret.metadata.namespace))
      .filter((c) => c.spec.connection.secretRef?.name === secret.metadata.name)
      .map(key);

/** The Secrets an Orchestrator's pods read, by name (`O-internal` aside: the operator labels it). */
export const secretsOfOrchestrator = (obj: KubeObject): string[] =>
  orchestrators.parseAll([obj]).flatMap(referencedSecrets);

/** The Secret holding a License's key. */
export const secretOfLicense = (obj: KubeObject): string[] =>
  licenses.parseAll([obj]).flatMap((l) => (l.spec.keySecretRef ? [l.spec.keySecretRef.name] : []));

/** The Secret of a Connector's connection. */
export const secretOfConnector = (obj: KubeObject): string[] =>
  connectors.parseAll([obj]).flatMap((c) => (c.spec.connection.secretRef ? [c.spec.connection.secretRef.name] : []));

/** Every Policy of the namespace when a Steward gateway pod changes (appears, goes, starts running). */
export const policiesOfGatewayPod =
  (cache: Cache) =>
  (pod: KubeObject): string[] => {
    const l = pod.metadata.labels ?? {};
    if (l[LABELS.name] !== 'steward' || l[LABELS.component] !== 'gateway') return [];
    return cache.list(Resources.Policy, pod.metadata.namespace).map(key);
  };
