// A request's logger: the server's logger with the request's id bound, made the first time the
// request logs. Most requests never log a line, and a pino child logger made for each of them is
// measurable on the hot path (and garbage for the collector under a storm).

import type { Logger } from '../../apimachinery/request-context.js';

export class RequestLogger implements Logger {
  private bound: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly requestId: string,
  ) {}

  private get logger(): Logger {
    return (this.bound ??= this.parent.child({ requestId: this.requestId }));
  }

  debug(obj: object | string, msg?: string): void {
    this.logger.debug(obj, msg);
  }

  info(obj: object | string, msg?: string): void {
    this.logger.info(obj, msg);
  }

  warn(obj: object | string, msg?: string): void {
    this.logger.warn(obj, msg);
  }

  error(obj: object | string, msg?: string): void {
    this.logger.error(obj, msg);
  }

  child(bindings: Record<string, unknown>): Logger {
    return this.logger.child(bindings);
  }
}
