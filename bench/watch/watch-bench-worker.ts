// One share of the watch fan-out benchmark's watchers, in a worker thread so that reading
// thousands of TLS streams is not one core's job: opens its watches, notes when each benchmark
// object's event arrives (absolute time, comparable across threads), reports progress, and on
// 'collect' hands over its receipts so far (the watches stay open for the next write rate);
// 'stop' closes everything. 'open-extra' / 'close-extra' open and close more watches, for the
// memory figure.

import http2 from 'node:http2';
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

export interface WatchWorkerData {
  url: string;
  ca: string;
  token: string;
  path: string;
  watchers: number;
  /** How many watches 'open-extra' opens. */
  extraWatchers: number;
  /** HTTP/2: this many watches share one connection (as in client-go); 0: HTTP/1.1, one connection each. */
  streamsPerConnection: number;
}

/** [write's sequence number, receipt time in ms since the epoch (sub-ms precision)]. */
export type Receipt = [number, number];

const data = workerData as WatchWorkerData;
const url = new URL(data.url);
const agent = new https.Agent({ ca: data.ca, keepAlive: false, maxSockets: Infinity });
let receipts: Receipt[] = [];
const now = (): number => performance.timeOrigin + performance.now();
/** The label each benchmark write sets to its sequence number (in metadata.labels only: managedFields name the key, never the value). */
const MARK = Buffer.from('"watch-bench-seq":"');

/** A reader for one stream: complete lines only (a chunk may end mid-line). */
function lineReader(): (chunk: Buffer) => void {
  let rest: Buffer | undefined;
  return (chunk) => {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    const last = buf.lastIndexOf(0x0a);
    rest = last < buf.length - 1 ? buf.subarray(last + 1) : undefined;
    const t = now();
    for (let at = buf.indexOf(MARK); at >= 0 && at < last; at = buf.indexOf(MARK, at + MARK.length)) {
      const start = at + MARK.length;
      const end = buf.indexOf(0x22, start); // the closing quote
      if (end > start) receipts.push([Number(buf.toString('latin1', start, end)), t]);
    }
  };
}

/** Closes the measured watches; `extraClosers`, the extra ones opened to measure memory (unless kept). */
const closers: (() => void)[] = [];
const extraClosers: (() => void)[] = [];

function watchOverHttp1(close: (() => void)[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = https.request({ agent, host: url.hostname, port: url.port, path: data.path, headers: { Authorization: `Bearer ${data.token}` } }, (res) => {
      res.on('data', lineReader());
      resolve();
    });
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error('watch did not answer within 60 s')));
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
    stream.setTimeout(60_000, () => stream.destroy(new Error('watch did not answer within 60 s')));
    close.push(() => stream.close());
  });
}

/** Opens `count` watches, a connection's worth (HTTP/2) or 200 (HTTP/1.1) at a time, so that thousands of handshakes do not all wait at once; each closer goes to `close`. */
async function openWatches(count: number, close: (() => void)[]): Promise<void> {
  const BATCH = 200;
  if (data.streamsPerConnection > 0) {
    for (let i = 0; i < count; i += data.streamsPerConnection) {
      // Receive windows as large as client-go's (1 GiB per connection, 4 MiB per stream), so
      // that flow control does not pace the server.
      const session = http2.connect(data.url, { ca: data.ca, settings: { initialWindowSize: 4 * 1024 * 1024 } });
      session.on('error', () => undefined);
      session.once('connect', () => session.setLocalWindowSize(1024 * 1024 * 1024));
      close.push(() => session.destroy());
      const n = Math.min(data.streamsPerConnection, count - i);
      await Promise.all(Array.from({ length: n }, () => watchOverHttp2(session, close)));
    }
  } else {
    for (let i = 0; i < count; i += BATCH) await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, () => watchOverHttp1(close)));
  }
}

try {
  await openWatches(data.watchers, closers);
  parentPort!.postMessage({ type: 'ready' });
} catch (err) {
  parentPort!.postMessage({ type: 'failed', message: `opening ${data.watchers} watches: ${err instanceof Error ? err.message : String(err)}` });
}
const progress = setInterval(() => parentPort!.postMessage({ type: 'progress', delivered: receipts.length }), 50);
parentPort!.on('message', (m: { type: string }) => {
  if (m.type === 'open-extra') {
    openWatches(data.extraWatchers, extraClosers).then(
      () => parentPort!.postMessage({ type: 'extra-ready' }),
      (err: unknown) => parentPort!.postMessage({ type: 'failed', message: `opening ${data.extraWatchers} more watches: ${err instanceof Error ? err.message : String(err)}` }),
    );
  } else if (m.type === 'close-extra') {
    for (const close of extraClosers.splice(0)) close();
    parentPort!.postMessage({ type: 'extra-closed' });
  } else if (m.type === 'collect') {
    const taken = receipts;
    receipts = [];
    parentPort!.postMessage({ type: 'receipts', receipts: taken });
  } else if (m.type === 'stop') {
    clearInterval(progress);
    for (const close of [...closers, ...extraClosers]) close();
    agent.destroy();
    parentPort!.postMessage({ type: 'done' });
  }
});
