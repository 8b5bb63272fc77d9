/**
 * Reads a Prometheus scrape with a real text-format parser (parse-prometheus-text-format), for tests: families
 * with their type and help, and every sample with its labels.
 * NB: the parser folds a histogram's labelled series into one, so samples are read a second time with the
 * histogram and summary TYPE lines removed: each `_bucket`, `_sum` and `_count` line is then a sample of its own.
 */
import parse from 'parse-prometheus-text-format';

export interface Sample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface Exposition {
  families: ReadonlyMap<string, { type: string; help: string }>;
  samples: readonly Sample[];
  /** Samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Readonly<Record<string, string>>): Sample[];
}

export function parseExposition(text: string): Exposition {
  const families = new Map(parse(text).map((f) => [f.name, { type: f.type.toLowerCase(), help: f.help }]));
  const flat = text.replace(/^# TYPE (\S+) (histogram|summary)$/gm, '# TYPE $1 untyped');
  const samples: Sample[] = [];
  for (const f of parse(flat)) {
    for (const m of f.metrics) samples.push({ name: f.name, labels: m.labels ?? {}, value: Number(m.value) });
  }
  return {
    families,
    samples,
    find: (name, labels = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)),
  };
}
