// The `watch` section of `npm run bench`: fan-out to BENCH_WATCHERS watchers (default 10,000)
// over HTTP/2 (100 watches per connection, as client-go multiplexes them) and over HTTP/1.1 (a
// connection each), each on a fresh server: idle memory per watcher, then writes at
// BENCH_WATCH_RATE per second (default 20: 200,000 events/s at 10,000 watchers) and the highest
// rate that still meets p99 < 100 ms (BENCH_WATCH_SEARCH=0: not searched; BENCH_WATCH_PROTOCOLS:
// h2,http/1.1 by default); a bare node:https server's memory per open response as the
// floor under an HTTP/1.1 watch; then 10 watchers at 1,000 writes/s. Beside each protocol's figures,
// the same watchers and write rates against a bare Node server that writes an event line
// of the same size to every watch per write (bare-server.ts): the floor under fan-out.

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fetchBody, measureMemory, startBareServer } from '../lib/bench-server.js';
import { benchIdleStreams, highestMeetingRate, meetsTarget, serverTarget, WatchClients, type RateResult } from './watch-bench.js';

/**
 * HTTP/1.1 watchers at most: a connection each, and the server accepts 10,000 connections
 * (server.ts), the writes' included. Each is also a file descriptor on both sides (the limit
 * here is 20,000, not raisable without privileges).
 */
const HTTP1_MAX_WATCHERS = 9_900;

export interface WatchSectionOptions {
  /** A fresh server started with `probed` node arguments (the memory probe). */
  fresh: () => Promise<{ url: string; ca: string; token: string; child: ChildProcess; dataDir: string }>;
  probed: string[];
  children: ChildProcess[];
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const rateLine = (r: RateResult): string =>
  `asked ${r.askedPerSecond}/s (${(r.askedPerSecond * r.watchers).toFixed(0)} events/s), achieved ${r.writesPerSecond.toFixed(1)}/s${r.refused ? ` (${r.refused} writes failed)` : ''}: ` +
  `delivered ${r.delivered === r.expected ? 'all' : `${r.delivered}/${r.expected}`} (${r.deliveredPerSecond.toFixed(0)}/s over the run), ` +
  `write-response→watcher p50 ${r.p50Ms.toFixed(1)} ms p99 ${r.p99Ms.toFixed(1)} ms; CPU: server ${r.serverCores.toFixed(2)} cores (${r.delivered ? ((r.serverCores * r.seconds * 1e6) / r.delivered).toFixed(2) : '-'} µs per delivered event), bench client ${r.clientCores.toFixed(2)}`;

export async function watchSection(o: WatchSectionOptions): Promise<void> {
  const watchers = Number(process.env.BENCH_WATCHERS ?? 10_000);
  const rate = Number(process.env.BENCH_WATCH_RATE ?? 20);
  const durationMs = Number(process.env.BENCH_WATCH_DURATION_MS ?? 5000);
  const search = process.env.BENCH_WATCH_SEARCH !== '0';
  console.log('');
  const fanOut = async (label: string, streamsPerConnection: number) => {
    const s = await o.fresh();
    // HTTP/2: memory from N to 2N idle watchers, then N are written to. HTTP/1.1: from N/2 to N
    // (2N connections would pass the server's limit), and all N are written to.
    const total = streamsPerConnection > 0 ? watchers : Math.min(watchers, HTTP1_MAX_WATCHERS);
    const first = streamsPerConnection > 0 ? watchers : Math.ceil(total / 2);
    const clients = await WatchClients.open({
      ...serverTarget(s),
      watchers: first,
      extraWatchers: streamsPerConnection > 0 ? watchers : total - first,
      keepExtra: streamsPerConnection === 0,
      streamsPerConnection,
    });
    let lineBytes = 0;
    try {
      const idle = await clients.idleMemory();
      console.log(
        `watch fan-out (a, ${label}), ${clients.watchers} watchers: idle memory per watcher, from ${first} to ${first + idle.extraWatchers} idle watchers after full collections: ` +
          `server RSS ${kb(idle.rssBytesPerWatcher)}, JavaScript heap in use ${kb(idle.heapBytesPerWatcher)} (target < 10 KB: ${Math.max(idle.rssBytesPerWatcher, idle.heapBytesPerWatcher) < 10 * 1024 ? 'met' : 'NOT met'})`,
      );
      const atRate = await clients.run(rate, durationMs);
      console.log(`  at ${rate} writes/s: ${rateLine(atRate)} (target p99 < 100 ms: ${meetsTarget(atRate) ? 'met' : 'NOT met'})`);
      if (search) {
        const { rate: best, tried } = await highestMeetingRate(clients, atRate, durationMs);
        for (const r of tried.slice(1)) console.log(`  at ${r.askedPerSecond} writes/s: ${rateLine(r)}${meetsTarget(r) ? '' : ' (missed)'}`);
        console.log(`  highest write rate meeting p99 < 100 ms with every event delivered: ${best === undefined ? 'none of those tried' : `${best}/s (${(best * clients.watchers).toFixed(0)} events/s)`}`);
      }
      // One event line as the watchers got it: the object as served, in a MODIFIED event.
      const object = await fetchBody(s, `/apis/networking.platform.io/v1/servicecidrs/${clients.label}-0`);
      lineBytes = Buffer.byteLength(JSON.stringify({ type: 'MODIFIED', object: JSON.parse(object.toString()) })) + 1;
    } finally {
      await clients.close();
    }
    await bareFanOut(s, streamsPerConnection, total, lineBytes, rate, durationMs, search);
    return s;
  };
  /** The same watchers and rates against the bare server: what Node's HTTP/2 alone costs. */
  const bareFanOut = async (s: { dataDir: string; ca: string }, streamsPerConnection: number, watchers: number, lineBytes: number, rate: number, durationMs: number, search: boolean) => {
    const bare = await startBareServer(join(s.dataDir, 'apiserver.crt'), join(s.dataDir, 'apiserver.key'), lineBytes, o.probed, 'both');
    o.children.push(bare.child);
    const clients = await WatchClients.open({ ...serverTarget({ ...bare, ca: s.ca, token: 'unused' }), watchers, streamsPerConnection, bare: true });
    try {
      const label = `  baseline: a bare Node server (node:http2, HTTP/1.1 allowed) writing a ${lineBytes}-byte line to the same ${clients.watchers} watches (${streamsPerConnection > 0 ? `HTTP/2, ${streamsPerConnection} per connection` : 'HTTP/1.1, a connection each'}) per write`;
      const atRate = await clients.run(rate, durationMs);
      console.log(`${label}, at ${rate} writes/s: ${rateLine(atRate)} (p99 < 100 ms: ${meetsTarget(atRate) ? 'met' : 'NOT met'})`);
      if (search) {
        const { rate: best, tried } = await highestMeetingRate(clients, atRate, durationMs);
        for (const r of tried.slice(1)) console.log(`    bare, at ${r.askedPerSecond} writes/s: ${rateLine(r)}${meetsTarget(r) ? '' : ' (missed)'}`);
        console.log(`    bare, highest write rate meeting p99 < 100 ms with every event delivered: ${best === undefined ? 'none of those tried' : `${best}/s (${(best * clients.watchers).toFixed(0)} events/s)`}`);
      }
    } finally {
      await clients.close();
    }
  };
  const protocols = (process.env.BENCH_WATCH_PROTOCOLS ?? 'h2,http/1.1').split(',');
  if (protocols.includes('h2')) await fanOut('HTTP/2, 100 watches per connection, as client-go multiplexes them', 100);
  if (!protocols.includes('http/1.1')) return;
  const watchServer = await fanOut('HTTP/1.1, a connection per watcher', 0);
  // The floor under an HTTP/1.1 watch: what Node's own HTTPS server spends on a connection
  // holding one open response, measured the same way.
  const bare = await startBareServer(join(watchServer.dataDir, 'apiserver.crt'), join(watchServer.dataDir, 'apiserver.key'), 0, o.probed);
  o.children.push(bare.child);
  const count = Math.min(watchers, HTTP1_MAX_WATCHERS / 2);
  const floor = await benchIdleStreams({ url: bare.url, ca: watchServer.ca, path: '/stream', count, memory: () => measureMemory(bare.child) });
  console.log(`  baseline: a bare node:https server holding ${count} more open responses, a TLS connection each: server RSS ${kb(floor.rssBytesPerStream)}, JavaScript heap in use ${kb(floor.heapBytesPerStream)} per connection`);
  const few = await WatchClients.open({ ...serverTarget(watchServer), watchers: 10, streamsPerConnection: 0 });
  try {
    const f = await few.run(1000, 5000);
    const keptUp = f.writesPerSecond >= 950 && f.delivered === f.expected;
    console.log(
      `watch fan-out (b): ${f.watchers} watchers, writes asked at 1000/s, achieved ${f.writesPerSecond.toFixed(0)}/s, delivered ${f.delivered}/${f.expected} (keeps up: ${keptUp ? 'yes' : 'NO'}), ` +
        `write-response→watcher p50 ${f.p50Ms.toFixed(1)} ms p99 ${f.p99Ms.toFixed(1)} ms (target ≤ 5 ms: ${f.p99Ms <= 5 ? 'met' : 'NOT met'})`,
    );
  } finally {
    await few.close();
  }
}
