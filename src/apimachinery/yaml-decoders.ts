// The YAML decoding threads: a YAML body too large to decode inline is decoded on one of these
// (yaml-decode-worker.ts), so the yaml package's parse, which takes seconds for a few megabytes,
// never holds the event loop. At most one thread per spare core (one at least, two at most),
// started when first needed and left to end with the process; bodies wait for a free one in
// arrival order. A request abandoned while its body is being decoded ends that thread (a parse
// cannot be interrupted otherwise) and a new one is started for the next body.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { badRequest, requestEntityTooLarge, requestTimedOut } from './status-error.js';
import type { YamlAnswer } from './yaml-decode-worker.js';

/**
 * A thread's heap. The yaml package needs about 150 times a document's size for a block sequence
 * of short items and 500 times for a flow sequence of one-character ones (a 3 MiB body of `[1,1,…]`
 * takes 1.5 GiB); a document that needs more than this is refused (413), and the server's memory
 * is bounded whatever a client sends.
 */
export const WORKER_HEAP_MB = 1024;

interface Task {
  text: string;
  signal?: AbortSignal;
  resolve: (a: YamlAnswer) => void;
  reject: (e: unknown) => void;
}

function spawn(): Worker {
  const here = import.meta.url;
  const resourceLimits = { maxOldGenerationSizeMb: WORKER_HEAP_MB };
  if (!here.endsWith('.ts')) return new Worker(new URL('./yaml-decode-worker.js', here), { resourceLimits });
  // Under tsx (tests, benchmarks from source) the thread loads TypeScript the same way.
  const entry = new URL('./yaml-decode-worker.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`, { eval: true, resourceLimits });
}

class YamlDecoders {
  private readonly idle: Worker[] = [];
  private running = 0;
  private readonly queue: Task[] = [];
  private nextId = 0;

  constructor(private readonly size: number) {}

  decode(text: string, signal?: AbortSignal): Promise<YamlAnswer> {
    if (signal?.aborted) return Promise.reject(requestTimedOut());
    return new Promise<YamlAnswer>((resolve, reject) => {
      const task: Task = { text, signal, resolve, reject };
      const onAbort = (): void => {
        const at = this.queue.indexOf(task);
        if (at >= 0) this.queue.splice(at, 1);
        reject(requestTimedOut());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = <T>(f: (v: T) => void) => (v: T) => {
        signal?.removeEventListener('abort', onAbort);
        f(v);
      };
      task.resolve = done(resolve);
      task.reject = done(reject);
      this.queue.push(task);
      this.next();
    });
  }

  private next(): void {
    while (this.queue.length && (this.idle.length || this.running < this.size)) {
      const task = this.queue.shift()!;
      const worker = this.idle.pop() ?? this.start();
      this.run(worker, task);
    }
  }

  private start(): Worker {
    this.running++;
    return spawn();
  }

  private run(worker: Worker, task: Task): void {
    const id = ++this.nextId;
    let settled = false;
    const finish = (reuse: boolean): void => {
      settled = true;
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      task.signal?.removeEventListener('abort', onAbort);
      if (reuse) {
        // An idle thread does not keep the process alive; a busy one does (its answer is awaited).
        worker.unref();
        this.idle.push(worker);
      } else {
        this.running--;
        void worker.terminate();
      }
      this.next();
    };
    const onMessage = (a: YamlAnswer): void => {
      if (a.id !== id || settled) return;
      finish(true);
      task.resolve(a);
    };
    const onError = (err: Error & { code?: string }): void => {
      if (settled) return;
      finish(false);
      // Out of memory or a crash: the document is refused, the thread replaced.
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        task.reject(requestEntityTooLarge(`error converting YAML to JSON: yaml: the document needs more than the ${WORKER_HEAP_MB} MiB a decoding thread has`));
      } else task.reject(badRequest(`error converting YAML to JSON: yaml: the document could not be decoded (${err.message})`));
    };
    const onExit = (): void => onError(new Error('the decoding thread ended'));
    // Abandoned mid-parse: the thread is ended (nothing else stops a parse), the task already rejected.
    const onAbort = (): void => {
      if (!settled) finish(false);
    };
    worker.ref();
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    task.signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ id, text: task.text });
  }
}

let decoders: YamlDecoders | undefined;

/** Decodes one YAML document on a decoding thread; rejects with requestTimedOut when `signal` aborts first. */
export function decodeYamlOffThread(text: string, signal?: AbortSignal): Promise<YamlAnswer> {
  decoders ??= new YamlDecoders(Math.max(1, Math.min(2, availableParallelism() - 1)));
  return decoders.decode(text, signal);
}
