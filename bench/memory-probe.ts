// Preloaded into the benchmark's fan-out servers only (node --expose-gc --import): on 'measure'
// over the IPC channel, runs full garbage collections and answers with the resident set size and
// the JavaScript heap in use,
// so that memory per watcher counts what is kept, not garbage waiting for the next collection.

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('the memory probe needs node --expose-gc');

process.on('message', (m: unknown) => {
  if (m !== 'measure') return;
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ rss, heapUsed });
});
// The channel must not keep a stopping server alive (adding the listener ref'd it).
process.channel?.unref();
