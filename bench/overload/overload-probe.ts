// Worker thread for the overload bench: a client apart from the storm (its own event loop and its
// own keep-alive connection, opened before the storm) that times /readyz and a single GET in
// turn until told to stop, then posts every latency back, with when each probe started (wall
// clock ms, so the bench can say when in the storm the slow ones were).

import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

interface ProbeData {
  url: string;
  ca: string;
  token: string;
  getPath: string;
  /** Pause between probes. */
  intervalMs: number;
}

const data = workerData as ProbeData;
const url = new URL(data.url);
const agent = new https.Agent({ ca: data.ca, keepAlive: true, maxSockets: 1 });
let stopping = false;
parentPort!.on('message', (m) => {
  if (m === 'stop') stopping = true;
});

/** One request's latency in ms, or -1 when it failed (not answered 200). */
function timed(path: string): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = https.request({ agent, host: url.hostname, port: url.port, path, headers: { Authorization: `Bearer ${data.token}` }, timeout: 60_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? Number(process.hrtime.bigint() - start) / 1e6 : -1));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(-1));
    req.end();
  });
}

const readyz: number[] = [];
const get: number[] = [];
/** When each probe started (wall clock, ms), parallel to the latencies. */
const readyzAt: number[] = [];
const getAt: number[] = [];
const epoch = performance.timeOrigin;
// Warm the connection first: the probe measures requests, not a handshake in the storm.
await timed('/readyz');
parentPort!.postMessage('warm');
while (!stopping) {
  readyzAt.push(epoch + performance.now());
  readyz.push(await timed('/readyz'));
  getAt.push(epoch + performance.now());
  get.push(await timed(data.getPath));
  await new Promise((r) => setTimeout(r, data.intervalMs));
}
agent.destroy();
parentPort!.postMessage({ readyz, get, readyzAt, getAt });
