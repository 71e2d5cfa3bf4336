// One share of the watch fan-out benchmark's watchers, in a worker thread so that reading a
// thousand TLS streams is not one core's job: opens its watches, notes when each benchmark
// object's event arrives (absolute time, comparable across threads), reports progress, and on
// 'stop' sends its receipts and closes. 'open-extra' / 'close-extra' open and close as many
// watches again, for the memory figure.

import http2 from 'node:http2';
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

export interface WatchWorkerData {
  url: string;
  ca: string;
  token: string;
  path: string;
  watchers: number;
  /** HTTP/2: this many watches share one connection (as in client-go); 0: HTTP/1.1, one connection each. */
  streamsPerConnection: number;
}

/** [object index, receipt time in ms since the epoch (sub-ms precision)]. */
export type Receipt = [number, number];

const data = workerData as WatchWorkerData;
const url = new URL(data.url);
const agent = new https.Agent({ ca: data.ca, keepAlive: false, maxSockets: Infinity });
const receipts: Receipt[] = [];
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

/** Closes the measured watches; `extraClosers`, the extra ones opened only to measure memory. */
const closers: (() => void)[] = [];
const extraClosers: (() => void)[] = [];

function watchOverHttp1(close: (() => void)[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = https.request({ agent, host: url.hostname, port: url.port, path: data.path, headers: { Authorization: `Bearer ${data.token}` } }, (res) => {
      res.on('data', lineReader());
      resolve();
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('watch did not answer within 30 s')));
    req.end();
    close.push(() => req.destroy());
  });
}

function watchOverHttp2(session: http2.ClientHttp2Session, close: (() => void)[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stream = session.request({ ':path': data.path, authorization: `Bearer ${data.token}` });
    stream.on('response', () => resolve());
    stream.on('data', lineReader());
    stream.on('error', reject);
    stream.setTimeout(30_000, () => stream.destroy(new Error('watch did not answer within 30 s')));
    close.push(() => stream.close());
  });
}

/** Opens this worker's share of watches, each closer going to `close`. */
async function openWatches(close: (() => void)[]): Promise<void> {
  if (data.streamsPerConnection > 0) {
    const sessions: http2.ClientHttp2Session[] = [];
    for (let i = 0; i < data.watchers; i += data.streamsPerConnection) {
      // Receive windows as large as client-go's (1 GiB per connection, 4 MiB per stream), so
      // that flow control does not pace the server.
      const session = http2.connect(data.url, { ca: data.ca, settings: { initialWindowSize: 4 * 1024 * 1024 } });
      session.on('error', () => undefined);
      session.once('connect', () => session.setLocalWindowSize(1024 * 1024 * 1024));
      sessions.push(session);
      close.push(() => session.destroy());
    }
    await Promise.all(Array.from({ length: data.watchers }, (_, i) => watchOverHttp2(sessions[Math.floor(i / data.streamsPerConnection)]!, close)));
  } else {
    await Promise.all(Array.from({ length: data.watchers }, () => watchOverHttp1(close)));
  }
}

await openWatches(closers);
parentPort!.postMessage({ type: 'ready' });
const progress = setInterval(() => parentPort!.postMessage({ type: 'progress', delivered: receipts.length }), 100);
parentPort!.on('message', (m: { type: string }) => {
  if (m.type === 'open-extra') {
    void openWatches(extraClosers).then(() => parentPort!.postMessage({ type: 'extra-ready' }));
  } else if (m.type === 'close-extra') {
    for (const close of extraClosers.splice(0)) close();
    parentPort!.postMessage({ type: 'extra-closed' });
  } else if (m.type === 'stop') {
    clearInterval(progress);
    for (const close of closers) close();
    agent.destroy();
    parentPort!.postMessage({ type: 'done', receipts });
  }
});
