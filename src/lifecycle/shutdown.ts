// Graceful stop, as kube-apiserver does it: on SIGTERM or SIGINT (or when the parent process is
// gone, e.g. `npm start` killed without forwarding the signal) readiness fails first and the
// server keeps serving for the shutdown delay (so load balancers notice), then stops accepting
// requests, lets in-flight ones finish and ends watches, then closes storage and exits 0 — all
// within the shutdown timeout, past which it closes storage anyway. A second signal exits at once.

import type { Logger } from '../apimachinery/request-context.js';

export interface ShutdownOptions {
  logger: Logger;
  /** --shutdown-delay-duration: how long /readyz fails before the server stops serving. */
  delayMs: number;
  /** --shutdown-timeout: the longest in-flight requests may take to finish. */
  timeoutMs: number;
  /** Stops accepting requests and resolves when in-flight ones have finished (watches ended). */
  stopServing(): Promise<void>;
  /** Closes everything behind the server (caches, audit log, storage: the database lock). */
  release(): Promise<void>;
  /**
   * How often to check that the parent process is still there (0: never). Only for a parent that
   * owns our lifetime (npm start); a server started with `nohup … &` must outlive its shell.
   */
  parentCheckMs?: number;
  exit?: (code: number) => void;
  /** The signals that stop the server (default SIGTERM and SIGINT). */
  signals?: readonly NodeJS.Signals[];
}

export interface Shutdown {
  /** True once a stop has begun: /readyz's shutdown check fails. */
  readonly shuttingDown: boolean;
  /** Begins a graceful stop (what SIGTERM does); resolves when it is done. */
  stop(reason: string): Promise<void>;
}

export function installShutdown(opts: ShutdownOptions): Shutdown {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping: Promise<void> | undefined;
  let signals = 0;

  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      opts.logger.info({ reason, delayMs: opts.delayMs, timeoutMs: opts.timeoutMs }, 'shutting down');
      clearInterval(parentTimer);
      if (opts.delayMs > 0) await sleep(opts.delayMs);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        opts.stopServing().then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), opts.timeoutMs))),
      ]);
      clearTimeout(timer);
      if (timedOut) opts.logger.warn({ timeoutMs: opts.timeoutMs }, 'in-flight requests did not finish within the shutdown timeout; closing storage anyway');
      await opts.release();
      opts.logger.info({}, 'stopped');
      exit(0);
    })().catch((err: unknown) => {
      opts.logger.error({ err }, 'shutdown failed');
      exit(1);
    });
    return stopping;
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      opts.logger.warn({ signal }, 'second signal: exiting at once');
      exit(1);
    }
    void stop(signal);
  };
  for (const signal of opts.signals ?? ['SIGTERM', 'SIGINT']) process.on(signal, onSignal);

  // A parent that dies leaves us re-parented (ppid changes): stop as if signalled.
  const parent = process.ppid;
  const parentCheckMs = opts.parentCheckMs ?? 0;
  const parentTimer =
    parentCheckMs > 0 && parent > 1
      ? setInterval(() => {
          if (process.ppid !== parent) void stop('parent process exited');
        }, parentCheckMs).unref()
      : undefined;

  return {
    get shuttingDown() {
      return stopping !== undefined;
    },
    stop,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
