declare module 'parse-prometheus-text-format' {
  export interface ParsedFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: {
      value?: string;
      labels?: Record<string, string>;
      buckets?: Record<string, string>;
      count?: string;
      sum?: string;
    }[];
  }
  /** Throws on a line that is not valid Prometheus text exposition format. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
