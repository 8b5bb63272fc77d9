/**
 * Which Services select a pod, without listing every Service on every pod event: the endpoint controllers keep
 * the selectors of their namespace's Services from the `services` watch, and remember what each pod matched at
 * its last event, so that a relabelled or deleted pod also wakes the Services it leaves. (The real controllers
 * do the same with a pod → services cache; listing all Services per pod event made a namespace of a few hundred
 * Services quadratic.)
 */
import type { JsonObject } from '../schema/types.js';
import { keyOf, meta, namespaceOf, obj, selectorMatches } from './util.js';

type Event = 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC';

export class ServiceSelectors {
  private readonly byNamespace = new Map<string, Map<string, JsonObject>>();
  private readonly lastMatch = new Map<string, string[]>();

  /** Call from the `services` watch: remembers the selector (Services without one select nothing). */
  noteService(svc: JsonObject, event: Event): void {
    const ns = namespaceOf(svc);
    let services = this.byNamespace.get(ns);
    if (!services) this.byNamespace.set(ns, (services = new Map()));
    const selector = obj(obj(svc.spec).selector);
    if (event === 'DELETED' || Object.keys(selector).length === 0) services.delete(keyOf(svc));
    else services.set(keyOf(svc), selector);
  }

  /** Call from the `pods` watch: the Services the pod matches now, and those it matched before. */
  servicesFor(pod: JsonObject, event: Event): string[] {
    const podKey = keyOf(pod);
    const labels = meta(pod).labels;
    const now: string[] = [];
    if (event !== 'DELETED') {
      for (const [key, selector] of this.byNamespace.get(namespaceOf(pod)) ?? []) {
        if (selectorMatches({ matchLabels: selector }, labels)) now.push(key);
      }
    }
    const before = this.lastMatch.get(podKey) ?? [];
    if (event === 'DELETED') this.lastMatch.delete(podKey);
    else this.lastMatch.set(podKey, now);
    return [...new Set([...now, ...before])];
  }
}

/** `a=1,b=2`: the label selector that lists only the pods a Service's `spec.selector` matches. */
export function equalitySelector(matchLabels: JsonObject): string {
  return Object.entries(matchLabels)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}
