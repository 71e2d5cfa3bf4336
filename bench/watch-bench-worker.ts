// One share of the watch fan-out benchmark's watchers, in a worker thread so that reading a
// thousand TLS streams is not one core's job: opens its watches, notes when each benchmark
// object's event arrives (absolute time, comparable across threads), reports progress, and on
// 'stop' sends its receipts and closes.

import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

export interface WatchWorkerData {
  url: string;
  ca: string;
  token: string;
  path: string;
  watchers: number;
}

/** [object index, receipt time in ms since the epoch (sub-ms precision)]. */
export type Receipt = [number, number];

const data = workerData as WatchWorkerData;
const url = new URL(data.url);
const agent = new https.Agent({ ca: data.ca, keepAlive: false, maxSockets: Infinity });
const receipts: Receipt[] = [];
const requests: ReturnType<typeof https.request>[] = [];
const now = (): number => performance.timeOrigin + performance.now();
const MARK = Buffer.from('"name":"watch-bench-');

/** A reader for one stream: complete lines only (a chunk may end mid-line). */
function lineReader(): (chunk: Buffer) => void {
  let rest: Buffer | undefined;
  return (chunk) => {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    const last = buf.lastIndexOf(0x0a);
    rest = last < buf.length - 1 ? buf.subarray(last + 1) : undefined;
    const t = now();
    // Each event names its object exactly once: "name":"watch-bench-<run>-<index>".
    for (let at = buf.indexOf(MARK); at >= 0 && at < last; at = buf.indexOf(MARK, at + MARK.length)) {
      const start = buf.indexOf(0x2d, at + MARK.length) + 1; // after the '-' that ends <run>
      const end = buf.indexOf(0x22, start); // the closing quote
      if (start > 0 && end > start) receipts.push([Number(buf.toString('latin1', start, end)), t]);
    }
  };
}

await Promise.all(
  Array.from(
    { length: data.watchers },
    () =>
      new Promise<void>((resolve, reject) => {
        const req = https.request({ agent, host: url.hostname, port: url.port, path: data.path, headers: { Authorization: `Bearer ${data.token}` } }, (res) => {
          res.on('data', lineReader());
          resolve();
        });
        req.on('error', reject);
        req.setTimeout(30_000, () => req.destroy(new Error('watch did not answer within 30 s')));
        req.end();
        requests.push(req);
      }),
  ),
);
parentPort!.postMessage({ type: 'ready' });
const progress = setInterval(() => parentPort!.postMessage({ type: 'progress', delivered: receipts.length }), 100);
parentPort!.on('message', (m: { type: string }) => {
  if (m.type !== 'stop') return;
  clearInterval(progress);
  for (const req of requests) req.destroy();
  agent.destroy();
  parentPort!.postMessage({ type: 'done', receipts });
});
