/**
 * The shapes the Kubernetes client speaks: objects and lists as the API serves them, the options of its calls,
 * and the observer told of every request. No I/O here; `client.ts` re-exports all of it.
 */
import type { ResourceRef } from './resources.js';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    deletionTimestamp?: string;
    creationTimestamp?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
};

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** What every call takes. */
export interface CallOptions {
  /**
   * Cancels the call: the rate-limit wait, the request in flight and any 429 retry. The call then rejects with
   * `KubeApiError` code 0, reason `Aborted` (`isAborted`), the signal's reason as its cause; it is not retried.
   */
  signal?: AbortSignal;
}

/** Options of the writes: create, replace, replaceStatus and patch. */
export interface WriteOptions extends CallOptions {
  fieldManager?: string;
}

export interface ListOptions extends CallOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  metadata: { resourceVersion: string; continue?: string };
  items: T[];
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The API's verbs, as client-go and RBAC name them. */
export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/**
 * Told of every request sent, each attempt on its own (a 429 waited out and retried is two). Called on the
 * request path: it must be cheap and must not throw.
 */
export interface KubeRequestObserver {
  /**
   * `subresource` is '' or e.g. 'status'; `code` the HTTP status, 0 when no answer came (timeout, connection
   * failure); `seconds` from sending to the answer read (a watch: to its headers), without the wait for the
   * client's own rate limit.
   */
  request(verb: KubeVerb, resource: ResourceRef, subresource: string, code: number, seconds: number): void;
}

export interface KubeClientOptions {
  /** Kubeconfig file; absent: the in-cluster service account. */
  kubeconfigFile?: string;
  /** Kubeconfig text (tests). */
  kubeconfigYaml?: string;
  /**
   * Without a kubeconfig: the folder the pod's /var/run/secrets/kubernetes.io/serviceaccount is found under.
   * '' in a real pod; the test kubelet's STEWARD_POD_ROOT there. @default ''
   */
  podRoot?: string;
  /** Sustained requests per second. @default 100 */
  qps?: number;
  /** Requests allowed at once above the sustained rate. @default 200 */
  burst?: number;
  /** Deadline of one call (not of a watch). @default 30s */
  timeoutMs?: number;
  /** Sent as User-Agent; also what the test server's request log shows. @default steward */
  userAgent?: string;
  /** Most times a 429 is retried after its Retry-After. @default 5 */
  maxThrottleRetries?: number;
  /** Told of every request (metrics). */
  observer?: KubeRequestObserver;
}
