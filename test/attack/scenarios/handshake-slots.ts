// Connections that take a place in the TLS front door and do not use it: idle ones (nothing
// sent), ones that send one byte (0x16, the start of a TLS record), and ones that trickle a real
// ClientHello a byte at a time. More of them than the server handshakes at once, and more
// arriving every second: a client connecting meanwhile must still be answered at once.

import { clientHello, Connections, trickle } from '../support/raw-tls.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';
import type { TestServer } from '../../e2e/harness.js';

export type SlotHolder = 'idle' | 'one-byte' | 'trickle';

export interface SlotOptions {
  kind: SlotHolder;
  /** Opened at once when the attack starts (default 64: twice the old 32 handshake slots). */
  connections?: number;
  /** And this many more every second while it lasts (default 4). */
  perSecond?: number;
  durationMs: number;
  afterMs?: number;
}

export interface SlotFigures extends AttackFigures {
  /** Attack connections the server closed while they were held. */
  closedByServer: number;
  opened: number;
}

export async function handshakeSlots(server: TestServer, o: SlotOptions): Promise<SlotFigures> {
  const conns = new Connections(server.port);
  const hello = o.kind === 'trickle' ? await clientHello() : Buffer.alloc(0);
  const timers: NodeJS.Timeout[] = [];
  let opened = 0;
  const openOne = (): void => {
    opened++;
    void conns.open((s) => {
      if (o.kind === 'one-byte') s.write(Buffer.from([0x16]));
      // A byte every 300 ms: a 1.5 KB ClientHello would take seven minutes.
      if (o.kind === 'trickle') timers.push(trickle(s, hello, 300));
    });
  };
  const figures = await measureAttack({
    name: `handshake slots: ${o.kind}`,
    server,
    durationMs: o.durationMs,
    afterMs: o.afterMs,
    start: async () => {
      for (let i = 0; i < (o.connections ?? 64); i++) openOne();
      const more = setInterval(() => {
        for (let i = 0; i < (o.perSecond ?? 4); i++) openOne();
      }, 1000);
      return {
        stop: () => clearInterval(more),
        release: () => {
          for (const t of timers) clearInterval(t);
          conns.release();
        },
      };
    },
  });
  return { ...figures, closedByServer: conns.closedByServer, opened };
}
