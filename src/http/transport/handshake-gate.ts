// Bounds how many TLS handshakes the server starts per turn of the event loop, so that a storm
// of new connections cannot starve the connections already open.
//
// Why here and not in the kernel: Go's server (kube-apiserver's) accepts every connection and
// runs each handshake on its own goroutine, spread over every core by the scheduler, so a
// handshake storm slows everyone a little. Node runs every handshake's crypto (ECDHE, the
// certificate signature) and the TLS and HTTP session set-up on the one event loop: 2,000
// ClientHellos arriving together are 2,000 handshakes done back to back, and a request on an
// open connection (a health probe, another client's GET) waits behind all of them. Node cannot
// pause accept() (and a connection left in the kernel backlog is invisible to the deadlines), so
// new connections are accepted at once, but a socket is handed to TLS only through this gate: at
// most `perTurn` start per turn, within `msPerTurn` of work (a setImmediate each, so the poll
// phase in between serves the open connections' requests first). Measured with `npm run bench --
// overload` (2,000 new connections at once) beside the code without the gate on the same machine:
// the storm's handshakes are spread over seconds instead of done in one burst, and the probes on
// an open connection wait about half as long at the 99th percentile.
//
// What the gate admits, and for how long (issue #29): only connections that have sent their
// whole ClientHello (client-hello.ts, read by connection-guard.ts): one that sent a byte, or
// trickles its hello, or nothing, waits outside the gate until its deadline and is never ahead of
// a client whose hello is in. A handshake takes its place in the gate only while the server works
// on it: TLS works out the server's first flight (key share, certificate signature) in the same
// turn, right after the start, and from then on the handshake waits on the client, holding
// nothing here; its own deadline (the TLS handshake timeout) bounds that wait. Go has no cap on
// handshakes under way either.

import type { Socket } from 'node:net';

/**
 * Handshakes started per turn of the event loop: the server's share of a handshake (key share,
 * certificate signature, TLS socket set-up) is about a millisecond of CPU, so a turn carries at
 * most a few ms of handshake work on top of the open connections' requests.
 */
export const HANDSHAKES_PER_TURN = 8;
/**
 * And no more once this much time went into starting handshakes in the turn (a loaded machine
 * makes each start slower).
 */
export const HANDSHAKE_MS_PER_TURN = 4;

interface Waiting {
  socket: Socket;
  start: () => void;
}

export class HandshakeGate {
  private queue: Waiting[] = [];
  private head = 0;
  private scheduled = false;

  constructor(
    private readonly perTurn = HANDSHAKES_PER_TURN,
    private readonly msPerTurn = HANDSHAKE_MS_PER_TURN,
  ) {}

  /** Sockets waiting for their turn (for tests and metrics). */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Runs `start` (which hands the socket to TLS) in a coming turn, in arrival order. */
  admit(socket: Socket, start: () => void): void {
    this.queue.push({ socket, start });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.waiting === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    let started = 0;
    const since = performance.now();
    while (started < this.perTurn && this.head < this.queue.length && performance.now() - since < this.msPerTurn) {
      const next = this.queue[this.head++]!;
      // Gone while it waited (the client gave up, or its deadline passed): nothing to start.
      if (next.socket.destroyed) continue;
      started++;
      next.start();
    }
    // Compact now and then so the queue's memory follows its length.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.schedule();
  }
}
