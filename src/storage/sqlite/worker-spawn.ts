// Starts one of storage's worker threads (the SQLite writer, a scheduled snapshot's save) from
// its module beside this one: compiled JavaScript when running from dist/, and under tsx (tests
// and benchmarks run from source) the thread must load TypeScript the same way.

import { Worker } from 'node:worker_threads';

/** `name` without extension, e.g. 'sqlite-writer-worker'. */
export function spawnStorageWorker(name: string, workerData: unknown): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const entry = new URL(`./${name}.ts`, here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`, { eval: true, workerData });
}
