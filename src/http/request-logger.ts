import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;

/**
 * A request's logger, made the first time the request writes a line its level lets through.
 *
 * Fastify gives every request a child logger bound to its id. Making one runs the logger's
 * redaction over the bindings (our paths have wildcards, so every key is checked): work paid on
 * every request, for a logger that, at LOG_LEVEL=warn, a successful request never writes to. Levels
 * the logger drops cost nothing here; the first line that is written makes the real child, with the
 * same bindings, and every later call goes to it.
 */
export class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: object,
  ) {}

  /** The child logger, made now if it was not yet. */
  get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    const logger = (this.made ?? this.parent) as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    return logger.isLevelEnabled ? logger.isLevelEnabled(level) : true;
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.made && !this.isLevelEnabled(level)) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
