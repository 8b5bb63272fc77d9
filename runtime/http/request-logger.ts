import type { Bindings, ChildLoggerOptions, Level, LogFn, Logger } from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/**
 * A request's logger: the parent's child with the request's bindings (reqId), created the first time
 * something is logged at an enabled level. Fastify makes one per request, and pino's child() (bindings
 * serialized through the redaction) cost more than the rest of a pre-check's logging, which is usually
 * nothing at all.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  private bound: Logger | undefined;

  /** @param parent a pino logger (fastify passes the app's logger, or a route's child of it) */
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions | undefined,
  ) {}

  get level(): string {
    return this.bound?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  // NB: prototype methods, not arrow fields: one logger per request must not allocate seven closures.
  fatal(...args: Parameters<LogFn>): void {
    this.log('fatal', args);
  }
  error(...args: Parameters<LogFn>): void {
    this.log('error', args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.log('warn', args);
  }
  info(...args: Parameters<LogFn>): void {
    this.log('info', args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.log('debug', args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.log('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return (this.bound ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  private log(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  private real(): Logger {
    return (this.bound ??= this.parent.child(this.bindings, this.options));
  }
}
