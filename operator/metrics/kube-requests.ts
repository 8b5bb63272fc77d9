/**
 * `steward_operator_kube_requests_total{verb, resource, code}` and
 * `steward_operator_kube_request_duration_seconds{verb, resource}`: what the operator asks of the API server,
 * fed by `KubeClient`'s observer. Requests are counted in plain numbers (cells) and handed to prom-client at
 * scrape time; the histogram's label child is looked up once per verb and resource.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { KubeRequestObserver, KubeVerb } from '../../platform/kube/client.js';
import type { ResourceRef } from '../../platform/kube/resources.js';

/** Buckets in seconds: 1 ms to a minute (a list of thousands of objects, a write queued behind priority and fairness). */
const KUBE_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Cell {
  readonly labels: { verb: KubeVerb; resource: string; code: string };
  n: number;
}

/** One verb on one resource (and subresource): a cell per status code, and its histogram child. */
interface Series {
  readonly verb: KubeVerb;
  readonly resource: string;
  readonly codes: Map<number, Cell>;
  readonly duration: Histogram.Internal<'verb' | 'resource'>;
}

export class KubeRequestMetrics implements KubeRequestObserver {
  private readonly duration: Histogram<'verb' | 'resource'>;
  private readonly cells: Cell[] = [];
  /** plural → subresource ('' for the object itself) → verb → series. NB: nested maps, so no key is built per request. */
  private readonly series = new Map<string, Map<string, Map<KubeVerb, Series>>>();

  constructor(registry: Registry) {
    const cells = this.cells;
    new Counter({
      name: 'steward_operator_kube_requests_total',
      help: 'Requests the operator sent to the Kubernetes API, each attempt, by verb, resource (plural, or plural/subresource) and HTTP status code (0: no answer).',
      labelNames: ['verb', 'resource', 'code'],
      registers: [registry],
      collect() {
        this.reset();
        for (const c of cells) this.inc(c.labels, c.n);
      },
    });
    this.duration = new Histogram({
      name: 'steward_operator_kube_request_duration_seconds',
      help: "Time from sending a Kubernetes API request to its answer read (a watch: to its headers), without the client's own rate-limit wait, by verb and resource.",
      labelNames: ['verb', 'resource'],
      buckets: KUBE_BUCKETS_S,
      registers: [registry],
    });
  }

  request(verb: KubeVerb, resource: ResourceRef, subresource: string, code: number, seconds: number): void {
    const s = this.seriesOf(verb, resource.plural, subresource);
    let cell = s.codes.get(code);
    if (!cell) {
      cell = { labels: { verb, resource: s.resource, code: String(code) }, n: 0 };
      s.codes.set(code, cell);
      this.cells.push(cell);
    }
    cell.n++;
    s.duration.observe(seconds);
  }

  private seriesOf(verb: KubeVerb, plural: string, subresource: string): Series {
    let subs = this.series.get(plural);
    if (!subs) this.series.set(plural, (subs = new Map()));
    let verbs = subs.get(subresource);
    if (!verbs) subs.set(subresource, (verbs = new Map()));
    let s = verbs.get(verb);
    if (!s) {
      const resource = subresource ? `${plural}/${subresource}` : plural;
      s = { verb, resource, codes: new Map(), duration: this.duration.labels({ verb, resource }) };
      verbs.set(verb, s);
    }
    return s;
  }
}
