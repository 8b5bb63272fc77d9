import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import type { JsonObject } from '../schema/types.js';
import { CRD_DIR, configMap } from '../test/fixtures.js';
import type { WatchEvent, WatchOptions } from './watch.js';

const kube = useTestCluster({ crds: CRD_DIR, client: false });

const name = (ev: WatchEvent): string => String((ev.object.metadata as JsonObject).name);

function collect(opts: WatchOptions): {
  events: WatchEvent[];
  closed: () => boolean;
  stop: () => void;
  settle: () => Promise<void>;
} {
  const events: WatchEvent[] = [];
  let closed = false;
  const h = kube.cluster.store.watch(
    'configmaps',
    { namespace: 'default', ...opts },
    (ev) => events.push(ev),
    () => (closed = true),
  );
  return { events, closed: () => closed, stop: () => h.stop(), settle: () => new Promise((r) => setTimeout(r, 0)) };
}

describe('watch', () => {
  it('starts with ADDED events for existing objects when no resourceVersion is given', async () => {
    kube.cluster.store.create('configmaps', configMap('a'));
    const w = collect({});
    kube.cluster.store.create('configmaps', configMap('b'));
    await w.settle();
    expect(w.events.map((e) => `${e.type} ${name(e)}`)).toEqual(['ADDED a', 'ADDED b']);
    w.stop();
  });

  it('replays exactly the changes after a resourceVersion', async () => {
    const a = kube.cluster.store.create('configmaps', configMap('a'));
    const from = String((a.metadata as JsonObject).resourceVersion);
    kube.cluster.store.update('configmaps', { ...a, data: { k: 'changed' } });
    kube.cluster.store.delete('configmaps', 'default', 'a');
    const w = collect({ resourceVersion: from });
    await w.settle();
    expect(w.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    expect((w.events[1]!.object.metadata as JsonObject).resourceVersion).toBe(kube.cluster.store.resourceVersion);
    w.stop();
  });

  it('turns label selector transitions into ADDED and DELETED', async () => {
    const w = collect({ labelSelector: 'team=blue' });
    const a = kube.cluster.store.create('configmaps', configMap('a', { k: 'v' }, { team: 'red' }));
    const blue = kube.cluster.store.update('configmaps', {
      ...a,
      metadata: { ...(a.metadata as JsonObject), labels: { team: 'blue' } },
    });
    const edited = kube.cluster.store.update('configmaps', { ...blue, data: { k: 'w' } });
    kube.cluster.store.update('configmaps', {
      ...edited,
      metadata: { ...(edited.metadata as JsonObject), labels: { team: 'red' } },
    });
    await w.settle();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    // Leaving the selection reports the last state that matched, at the leaving change's version.
    expect((w.events[2]!.object.metadata as JsonObject).labels).toEqual({ team: 'blue' });
    expect((w.events[2]!.object.metadata as JsonObject).resourceVersion).toBe(kube.cluster.store.resourceVersion);
    w.stop();
  });

  it('follows one object by a metadata.name field selector, from its creation to its deletion', async () => {
    const w = collect({ fieldSelector: 'metadata.name=b' });
    kube.cluster.store.create('configmaps', configMap('a'));
    const b = kube.cluster.store.create('configmaps', configMap('b'));
    kube.cluster.store.update('configmaps', { ...b, data: { k: 'changed' } });
    kube.cluster.store.delete('configmaps', 'default', 'a');
    kube.cluster.store.delete('configmaps', 'default', 'b');
    await w.settle();
    expect(w.events.map((e) => `${e.type} ${name(e)}`)).toEqual(['ADDED b', 'MODIFIED b', 'DELETED b']);
    w.stop();
  });

  it('answers a compacted resourceVersion with ERROR 410 Expired and closes', async () => {
    const a = kube.cluster.store.create('configmaps', configMap('a'));
    kube.cluster.store.update('configmaps', { ...a, data: { k: '2' } });
    kube.cluster.compact();
    const w = collect({ resourceVersion: String((a.metadata as JsonObject).resourceVersion) });
    await w.settle();
    expect(w.events).toHaveLength(1);
    expect(w.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(w.events[0]!.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    expect(w.closed()).toBe(true);
  });

  it('sends BOOKMARKs, including the initial-events-end one for sendInitialEvents', async () => {
    kube.cluster.store.create('configmaps', configMap('a'));
    const w = collect({ allowWatchBookmarks: true, sendInitialEvents: true });
    await w.settle();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(w.events[1]!.object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        resourceVersion: kube.cluster.store.resourceVersion,
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    });
    w.stop();
  });

  it('ends every watch when the kube.cluster is restored, and later watches from old versions expire', async () => {
    const a = kube.cluster.store.create('configmaps', configMap('a'));
    const snap = kube.cluster.snapshot();
    const w = collect({});
    kube.cluster.store.create('configmaps', configMap('b'));
    kube.cluster.restore(snap);
    await w.settle();
    expect(w.closed()).toBe(true);
    expect(
      kube.cluster.store.list('configmaps', { namespace: 'default' }).items.map((o) => (o.metadata as JsonObject).name),
    ).toEqual(['a']);
    const late = collect({ resourceVersion: String((a.metadata as JsonObject).resourceVersion) });
    await late.settle();
    expect(late.events[0]?.type).toBe('ERROR');
  });
});
