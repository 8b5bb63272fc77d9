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
 * How runtimes read declarative state (the five kinds). Two implementations: a folder of YAML manifests
 * (standalone) and the Kubernetes API (in a cluster). Reads are from memory; changes arrive as events.
 */
export interface DeclarativeSource {
  /** Resolves once the first full load is done. */
  ready(): Promise<void>;
  list<K extends KindName>(kind: K, namespace?: string): ResourceByKind[K][];
  get<K extends KindName>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined;
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
