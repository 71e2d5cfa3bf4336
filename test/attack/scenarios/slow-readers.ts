// Clients that open a watch, or a large list, and read nothing, while objects change (an
// annotation of ~200 KB rewritten as fast as the server takes it). Every watch must be bounded by
// what its client reads, on HTTP/2 as on HTTP/1.1: a watcher that falls too far behind is cut
// (it sees an ERROR event, or its stream ends, once it reads again), and the server's memory
// stays bounded meanwhile. Before the fix an HTTP/2 watch believed its client kept up: the
// server queued every event for it, and none was ever cut.

import http2 from 'node:http2';
import https from 'node:https';
import type { TestServer } from '../../e2e/harness.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';
import { ProcSampler } from '../support/proc.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const ANNOTATION_BYTES = 200 * 1024;

export interface SlowReaderOptions {
  protocol: 'http/1.1' | 'h2';
  what: 'watch' | 'list';
  /** Non-reading clients (HTTP/2: one connection each). */
  readers: number;
  /** Watches: the writes made (at most; the attack lasts `durationMs` at most). */
  writes?: number;
  durationMs: number;
  /** How long a reader that reads again may take to reach the end of its (cut) stream. */
  drainMs?: number;
}

export interface SlowReaderFigures extends AttackFigures {
  writes: number;
  /**
   * Watches: the server's RSS growth (MB, peak over start) over the same writes with no reader,
   * made first (the watch cache keeps a window of past events: this much is the writes' own).
   */
  controlGrowthMB?: number;
  /** How each reader's stream ended once it read again: 'cut: <reason>', 'reset', 'end', or 'open' (still going). */
  outcomes: string[];
}

interface Reader {
  /** Reads again; resolves with how the stream ended, or 'open' if it had not within `ms`. */
  drain(ms: number): Promise<string>;
  close(): void;
}

/** The last ERROR event's reason in newline-delimited watch events, if any. */
function errorReason(text: string): string | undefined {
  const at = text.lastIndexOf('{"type":"ERROR"');
  if (at < 0) return undefined;
  try {
    return (JSON.parse(text.slice(at, text.indexOf('\n', at))) as { object: { reason: string; message: string } }).object.message;
  } catch {
    return 'ERROR';
  }
}

function h2Reader(server: TestServer, path: string): Reader {
  // A 64 KiB window, never opened further: the client reads nothing until drain().
  const session = http2.connect(server.url, { ca: server.caCertPem, settings: { initialWindowSize: 65_535 } });
  session.on('error', () => undefined);
  const stream = session.request({ ':path': path, authorization: `Bearer ${server.token}` });
  stream.pause();
  let tail = '';
  let ended: string | undefined;
  const over = new Promise<string>((resolve) => {
    stream.on('end', () => resolve((ended ??= errorReason(tail) ? `cut: ${errorReason(tail)}` : 'end')));
    stream.on('close', () => resolve((ended ??= stream.rstCode ? 'reset' : errorReason(tail) ? `cut: ${errorReason(tail)}` : 'end')));
    stream.on('error', () => resolve((ended ??= 'reset')));
  });
  return {
    drain(ms) {
      stream.on('data', (c: Buffer) => (tail = (tail + c.toString('latin1')).slice(-4096)));
      stream.resume();
      return Promise.race([over, new Promise<string>((r) => setTimeout(() => r('open'), ms).unref())]);
    },
    close: () => session.destroy(),
  };
}

function http1Reader(server: TestServer, path: string): Reader {
  let tail = '';
  let res: import('node:http').IncomingMessage | undefined;
  let ended: string | undefined;
  let resolveOver: (how: string) => void = () => undefined;
  const over = new Promise<string>((resolve) => (resolveOver = (how) => resolve((ended ??= how))));
  const req = https.request({ host: '127.0.0.1', port: server.port, path, ca: server.caCertPem, agent: false, headers: { authorization: `Bearer ${server.token}` } }, (r) => {
    res = r;
    r.pause();
    r.on('end', () => resolveOver(errorReason(tail) ? `cut: ${errorReason(tail)}` : 'end'));
    r.on('aborted', () => resolveOver('reset'));
    r.on('error', () => resolveOver('reset'));
  });
  req.on('error', () => resolveOver('reset'));
  req.end();
  return {
    drain(ms) {
      res?.on('data', (c: Buffer) => (tail = (tail + c.toString('latin1')).slice(-4096)));
      res?.resume();
      return Promise.race([over, new Promise<string>((r) => setTimeout(() => r('open'), ms).unref())]);
    },
    close: () => req.destroy(),
  };
}

const annotated = (name: string, n: number) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, annotations: { 'attack.platform.io/filler': `${n}-`.padEnd(ANNOTATION_BYTES, 'x') } },
  spec: { cidrs: ['10.88.0.0/24'] },
});

export async function slowReaders(server: TestServer, o: SlowReaderOptions): Promise<SlowReaderFigures> {
  const readers: Reader[] = [];
  let writes = 0;
  const name = `churn-${o.protocol.replace('/', '')}-${o.what}`;
  if (o.what === 'list') {
    // 60 objects of 200 KB: a 12 MB list, written a slice at a time.
    for (let i = 0; i < 60; i++) await server.request('POST', SC, { body: annotated(`${name}-${i}`, i) });
  } else {
    await server.request('POST', SC, { body: annotated(name, 0) });
  }
  const path = o.what === 'watch' ? `${SC}?watch=1&fieldSelector=metadata.name%3D${name}` : SC;
  const patch = async (): Promise<void> => {
    const r = await server.request('PATCH', `${SC}/${name}`, {
      body: { metadata: { annotations: { 'attack.platform.io/filler': `${++writes}-`.padEnd(ANNOTATION_BYTES, 'x') } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    if (r.status !== 200) throw new Error(`PATCH: ${r.status} ${r.text.slice(0, 200)}`);
  };
  let controlGrowthMB: number | undefined;
  if (o.what === 'watch' && o.writes) {
    const sampler = new ProcSampler(server.pid!);
    const start = sampler.lastRss;
    const deadline = Date.now() + o.durationMs;
    while (writes < o.writes && Date.now() < deadline) await patch();
    sampler.stop();
    controlGrowthMB = (sampler.peakRss - start) / (1024 * 1024);
    writes = 0;
  }
  let outcomes: string[] = [];
  const figures = await measureAttack({
    name: `${o.readers} non-reading ${o.protocol} ${o.what === 'watch' ? 'watchers of an object changing (200 KB per event)' : 'readers of a 12 MB list'}`,
    server,
    durationMs: o.durationMs,
    start: async () => {
      for (let i = 0; i < o.readers; i++) readers.push(o.protocol === 'h2' ? h2Reader(server, path) : http1Reader(server, path));
      let running = o.what === 'watch';
      const writer = (async () => {
        while (running && writes < (o.writes ?? Infinity)) await patch();
      })();
      return {
        stop: async () => {
          running = false;
          await writer;
        },
        release: async () => {
          // Each reader reads again: a stream that was cut ends; one still going is 'open'.
          outcomes = await Promise.all(readers.map((r) => r.drain(o.drainMs ?? 15_000)));
          for (const r of readers) r.close();
        },
      };
    },
  });
  return { ...figures, writes, outcomes, controlGrowthMB };
}
