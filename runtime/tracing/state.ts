/** What the process's SDK does (setup.ts sets it): read on the request path, so plain fields. */
class TracingState {
  /** Spans are recorded and exported. */
  traces = false;
  /** The GenAI client metrics are recorded and exported. */
  metrics = false;
  /** Prompts and answers (redacted) go into the spans. */
  captureContent = false;

  enable(captureContent: boolean, traces: boolean, metrics: boolean): void {
    this.traces = traces;
    this.metrics = metrics;
    this.captureContent = captureContent && traces;
  }

  disable(): void {
    this.traces = false;
    this.metrics = false;
    this.captureContent = false;
  }
}

export const tracingState = new TracingState();
