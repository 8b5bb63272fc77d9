import type { AnyResource, KindName, ResourceByKind } from '../../api/index.js';

/** Where a document came from, for error messages and for writes. */
export interface Origin {
  file: string;
  /** 0-based index of the document inside a multi-document file. */
  documentIndex: number;
}

/** A document that was skipped, and why. */
export interface LoadIssue extends Origin {
  field: string;
  message: string;
}

export type SourceEvent =
  { type: 'added' | 'modified'; resource: AnyResource } | { type: 'deleted'; resource: AnyResource };

export type SourceListener = (events: readonly SourceEvent[]) => void;

/**
 * A ConfigMap a document references (`Policy.spec.wasm.configMapRef`): a Kubernetes object in a cluster, a
 * `v1 ConfigMap` document of the manifest folders standalone.
 */
export interface ConfigMapData {
  namespace: string;
  name: string;
  data: Readonly<Record<string, string>>;
  /** Values base64-encoded, as the API carries them. */
  binaryData: Readonly<Record<string, string>>;
  /** Changes whenever data or binaryData may have changed (resourceVersion in a cluster, a content hash standalone). */
  version: string;
}

/**
 * How runtimes read declarative state (the kinds of api/kinds.ts). Two implementations: a folder of YAML manifests
 * (standalone) and the Kubernetes API (in a cluster). Reads are from memory; changes arrive as events.
 */
export interface DeclarativeSource {
  /** Resolves once the first full load is done. */
  ready(): Promise<void>;
  list<K extends KindName>(kind: K, namespace?: string): ResourceByKind[K][];
  get<K extends KindName>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined;
  /**
   * A ConfigMap of the source's namespace(s), read from memory. A change of one reaches subscribers as a
   * modification of every document that references it. Absent where the source reads none.
   */
  configMap?(namespace: string, name: string): ConfigMapData | undefined;
  /** The one namespace the source reads, when it reads one (Kubernetes); absent: any (folders). */
  readonly namespace?: string;
  /** Documents skipped on the last load, with file, document index and field. */
  issues(): readonly LoadIssue[];
  /**
   * Re-reads the documents now (folder mode without watching); changes arrive as events before it resolves.
   * Absent where the source is always current (Kubernetes informers).
   */
  reload?(): Promise<void>;
  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe(listener: SourceListener): () => void;
  /** Creates or replaces a resource (a file in folder mode, an object in a cluster). */
  apply(resource: AnyResource): Promise<AnyResource>;
  delete(kind: KindName, name: string, namespace?: string): Promise<boolean>;
  close(): Promise<void>;
}

export const DEFAULT_NAMESPACE = 'default';
