// Bounds the TLS handshakes the server works on at once, and how many it starts per turn of the
// event loop, so that a storm of new connections cannot starve the connections already open.
//
// Why here and not in the kernel: Go's server (kube-apiserver's) accepts every connection and
// runs each handshake on its own goroutine, spread over every core by the scheduler, so a
// handshake storm slows everyone a little. Node runs every handshake's crypto (ECDHE, the
// certificate signature) and the TLS and HTTP session set-up on the one event loop, inside the
// socket's read callback: 2,000 ClientHellos arriving together are 2,000 handshakes done back to
// back in the same poll phase, and a request on an open connection (a health probe, another
// client's GET) waits behind all of them. Node cannot pause accept() (and a connection left in
// the kernel backlog is invisible to the deadlines), so new connections are accepted at once, as
// before, but a socket's bytes are not read — it is paused, costing a file descriptor and a few
// hundred bytes — until a handshake slot is free. At most `maxConcurrent` handshakes are under way,
// and at most `perTurn` start per turn, within `msPerTurn` of work (a setImmediate, so the poll
// phase in between serves the open connections' requests first). Measured with `npm run bench --
// overload` (2,000 new connections at once) beside the code without the gate on the same machine:
// the storm's handshakes are spread over seconds instead of done in one burst, and the probes on
// an open connection wait about half as long at the 99th percentile. A queued socket still obeys the connection's header deadline
// (connection-guard.ts), so the queue cannot hold a connection for longer than an unqueued one.

import type { Socket } from 'node:net';

/**
 * Handshakes under way at once. A handshake's round trips wait on the client (a storming client's
 * own event loop is slow to answer), so this is set well above what one turn starts; what it
 * bounds is the memory of half-done handshakes and the second flights (client Finished, then
 * the HTTP session set-up) that can land in one poll phase.
 */
export const MAX_CONCURRENT_HANDSHAKES = 32;
/**
 * Handshakes started per turn of the event loop: the server's share of a handshake (key share,
 * certificate signature, TLS socket set-up) is about a millisecond of CPU, so a turn carries at
 * most a few ms of handshake work on top of the open connections' requests.
 */
export const HANDSHAKES_PER_TURN = 8;
/**
 * And no more once this much time went into starting handshakes in the turn (a loaded machine
 * makes each one slower; the starts are timed since the first flight is worked out inside them).
 */
export const HANDSHAKE_MS_PER_TURN = 4;

interface Waiting {
  socket: Socket;
  start: () => void;
}

export class HandshakeGate {
  private running = 0;
  private queue: Waiting[] = [];
  private head = 0;
  private scheduled = false;
  /** Sockets that hold a slot (a WeakSet: a lost socket holds nothing). */
  private readonly holders = new WeakSet<Socket>();

  constructor(
    private readonly maxConcurrent = MAX_CONCURRENT_HANDSHAKES,
    private readonly perTurn = HANDSHAKES_PER_TURN,
    private readonly msPerTurn = HANDSHAKE_MS_PER_TURN,
  ) {}

  /** Handshakes under way, and sockets waiting for one (for tests and metrics). */
  get inProgress(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length - this.head;
  }

  /**
   * Runs `start` (which hands the socket to TLS) when a slot is free. The slot is held until
   * `done()` is called (the handshake finished or failed) or the socket closes.
   */
  admit(socket: Socket, start: () => void): void {
    this.queue.push({ socket, start });
    this.schedule();
  }

  /** The handshake on `socket` is over (secure, failed or closed): its slot is free. */
  done(socket: Socket): void {
    if (!this.holders.has(socket)) return;
    this.holders.delete(socket);
    this.running--;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.waiting === 0 || this.running >= this.maxConcurrent) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    let started = 0;
    const since = performance.now();
    while (started < this.perTurn && this.running < this.maxConcurrent && this.head < this.queue.length && performance.now() - since < this.msPerTurn) {
      const next = this.queue[this.head++]!;
      // Gone while it waited (the client gave up, or its deadline passed): no slot needed.
      if (next.socket.destroyed) continue;
      started++;
      this.running++;
      this.holders.add(next.socket);
      next.socket.once('close', () => this.done(next.socket));
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
