// Watches deliver by push: the producer calls the consumer's sink once per event, synchronously,
// so fanning one event out to a thousand watchers costs a thousand function calls, not a
// thousand chains of promises. A sink that cannot take more returns false; the producer then
// holds further events (in its own bounded queue) until resume(). `iterate` adapts a push stream
// for `for await` consumers.

/** The consumer's side of a push stream. */
export interface EventSink<E> {
  /** One event. Returning false pauses delivery until the stream's resume(). */
  next(e: E): boolean;
  /** The stream ended, cleanly or with `err`. Called at most once, and never after stop(). */
  end(err?: unknown): void;
}

/** The producer's side. */
export interface PushStream<E> {
  /** Starts delivery (once). Events, and end, may arrive synchronously from inside this call. */
  start(sink: EventSink<E>): void;
  /** Continues delivery after the sink returned false. */
  resume(): void;
  /** Ends the stream from the consumer's side: no further calls to the sink. */
  stop(): void;
}

/**
 * Adapts a push stream to an async iterator that pulls one event at a time: the producer is
 * paused after each event until the consumer asks for the next, so a slow consumer is the
 * producer's (bounded) problem, exactly as with a pushing consumer. Leaving the loop stops it.
 */
export function iterate<E>(stream: PushStream<E>): AsyncIterableIterator<E> {
  const buffered: E[] = [];
  let ended = false;
  let failure: unknown;
  let started = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const sink: EventSink<E> = {
    next(e) {
      buffered.push(e);
      notify();
      return false;
    },
    end(err) {
      ended = true;
      failure = err;
      notify();
    },
  };
  const iterator: AsyncIterableIterator<E> = {
    async next(): Promise<IteratorResult<E>> {
      for (;;) {
        if (buffered.length) return { value: buffered.shift()!, done: false };
        if (ended) {
          if (failure !== undefined) {
            const err = failure;
            failure = undefined;
            throw err;
          }
          return { value: undefined, done: true };
        }
        const waiting = new Promise<void>((resolve) => (wake = resolve));
        if (!started) {
          started = true;
          stream.start(sink);
        } else stream.resume();
        await waiting;
      }
    },
    async return(): Promise<IteratorResult<E>> {
      if (!ended) {
        ended = true;
        stream.stop();
      }
      buffered.length = 0;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
