/**
 * Prometheus text exposition format 0.0.4: `# HELP` and `# TYPE` once per family, then its samples.
 * Names and label names are checked, label values and help text escaped.
 */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Readonly<Record<string, string>>;

export interface CounterFamily {
  type: 'counter';
  name: string;
  help: string;
  samples: readonly { labels?: Labels; value: number }[];
}

export interface GaugeFamily {
  type: 'gauge';
  name: string;
  help: string;
  samples: readonly { labels?: Labels; value: number }[];
}

export interface HistogramFamily {
  type: 'histogram';
  name: string;
  help: string;
  series: readonly {
    labels?: Labels;
    /** Cumulative counts per upper bound, ascending; the +Inf bucket is `count` and is added here. */
    buckets: readonly { le: number; count: number }[];
    sum: number;
    count: number;
  }[];
}

export type MetricFamily = CounterFamily | GaugeFamily | HistogramFamily;

export class PrometheusFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrometheusFormatError';
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function renderLabels(family: string, labels: Labels | undefined, extra?: [string, string]): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (!LABEL_NAME.test(k) || k.startsWith('__')) throw new PrometheusFormatError(`${family}: invalid label name "${k}"`);
    if (typeof v !== 'string') throw new PrometheusFormatError(`${family}: label ${k} must be a string`);
    parts.push(`${k}="${escapeLabelValue(v)}"`);
  }
  if (extra) parts.push(`${extra[0]}="${extra[1]}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

export function renderPrometheus(families: readonly MetricFamily[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const f of families) {
    if (!METRIC_NAME.test(f.name)) throw new PrometheusFormatError(`invalid metric name "${f.name}"`);
    if (seen.has(f.name)) throw new PrometheusFormatError(`metric family "${f.name}" appears twice`);
    seen.add(f.name);
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type === 'histogram') {
      for (const s of f.series) renderHistogramSeries(lines, f.name, s);
    } else {
      for (const s of f.samples) {
        if (f.type === 'counter' && !(s.value >= 0)) throw new PrometheusFormatError(`${f.name}: a counter cannot be ${s.value}`);
        lines.push(`${f.name}${renderLabels(f.name, s.labels)} ${formatValue(s.value)}`);
      }
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function renderHistogramSeries(lines: string[], name: string, s: HistogramFamily['series'][number]): void {
  if (s.labels && Object.hasOwn(s.labels, 'le')) throw new PrometheusFormatError(`${name}: "le" is reserved in histograms`);
  let prevLe = -Infinity;
  let prevCount = 0;
  for (const b of s.buckets) {
    if (!(b.le > prevLe) || b.count < prevCount || b.count > s.count) {
      throw new PrometheusFormatError(`${name}: buckets must have ascending bounds and cumulative counts no larger than count`);
    }
    prevLe = b.le;
    prevCount = b.count;
    lines.push(`${name}_bucket${renderLabels(name, s.labels, ['le', formatValue(b.le)])} ${formatValue(b.count)}`);
  }
  lines.push(`${name}_bucket${renderLabels(name, s.labels, ['le', '+Inf'])} ${formatValue(s.count)}`);
  lines.push(`${name}_sum${renderLabels(name, s.labels)} ${formatValue(s.sum)}`);
  lines.push(`${name}_count${renderLabels(name, s.labels)} ${formatValue(s.count)}`);
}
