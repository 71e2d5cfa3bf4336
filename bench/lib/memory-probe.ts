// Preloaded into the benchmark's fan-out servers only (node --expose-gc --import): on 'measure'
// over the IPC channel, runs full garbage collections and answers with the resident set size and
// the JavaScript heap in use,
// so that memory per watcher counts what is kept, not garbage waiting for the next collection.
// On { snapshot: path }, writes a heap snapshot there (after the same collections) and answers
// with its path: the idle-watch memory script diffs two of them to see what each watcher holds.

import v8 from 'node:v8';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('the memory probe needs node --expose-gc');

process.on('message', (m: unknown) => {
  if (m === 'measure') {
    gc();
    gc();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ rss, heapUsed });
  } else if (typeof m === 'object' && m !== null && typeof (m as { snapshot?: unknown }).snapshot === 'string') {
    gc();
    gc();
    process.send?.({ snapshot: v8.writeHeapSnapshot((m as { snapshot: string }).snapshot) });
  }
});
// The channel must not keep a stopping server alive (adding the listener ref'd it).
process.channel?.unref();
