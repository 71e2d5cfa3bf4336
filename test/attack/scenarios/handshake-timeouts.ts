// Connections whose TLS handshake never finishes, held open by the attacker: each sends a whole
// ClientHello (the server answers with its flight) or one byte, then nothing. The server must
// close each at its handshake deadline (--read-header-timeout), as Go does, so that they stop
// counting against its descriptors; before the fix a timed-out handshake had an HTTP 400
// written into it and was never closed.

import { clientHello, Connections } from '../support/raw-tls.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';
import type { TestServer } from '../../e2e/harness.js';

export interface StalledOptions {
  /** What each connection sends before falling silent. */
  kind: 'hello' | 'one-byte';
  connections?: number;
  /** More every second while the attack lasts. */
  perSecond?: number;
  durationMs: number;
  /** How long after the attack stops its connections are still held (the server's deadline must pass in it). */
  afterMs: number;
}

export interface StalledFigures extends AttackFigures {
  opened: number;
  /** Held connections the server closed by the end of the "after" phase. */
  closedByServer: number;
}

export async function stalledHandshakes(server: TestServer, o: StalledOptions): Promise<StalledFigures> {
  const conns = new Connections(server.port);
  const hello = await clientHello();
  let opened = 0;
  const openOne = (): void => {
    opened++;
    void conns.open((s) => s.write(o.kind === 'hello' ? hello : Buffer.from([0x16])));
  };
  let closedByServer = 0;
  const figures = await measureAttack({
    name: `stalled handshakes: ${o.kind === 'hello' ? 'a whole ClientHello, then silence' : 'one byte, then silence'}`,
    server,
    durationMs: o.durationMs,
    afterMs: o.afterMs,
    start: () => {
      for (let i = 0; i < (o.connections ?? 100); i++) openOne();
      const more = setInterval(() => {
        for (let i = 0; i < (o.perSecond ?? 10); i++) openOne();
      }, 1000);
      return {
        stop: () => clearInterval(more),
        release: () => {
          closedByServer = conns.closedByServer;
          conns.release();
        },
      };
    },
  });
  return { ...figures, opened, closedByServer };
}
