/** The errors of Go's time package (time.Parse, time.ParseDuration, time.LoadLocation), with Go's text. */
export class TimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeError';
  }
}
