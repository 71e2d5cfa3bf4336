// Closes an HTTP/1.1 connection whose client may still be sending (a body refused as too large)
// so that the client reads the answer first, as Go's server does with its "lingering close"
// (closeWriteAndWait: it stops writing, then waits before it closes). Closing at once, with the
// client's bytes still arriving, makes the kernel reset the connection; a client still writing
// then gets EPIPE or ECONNRESET, and the reset discards the answer it had not read yet (a client
// that writes its whole body before reading, as Python's does, never sees it).
//
// Node closes a connection whose answer said `Connection: close` by calling the socket's
// destroySoon() once the answer is written; for this socket it instead ends its side (the
// answer, then TLS close_notify and FIN), goes on reading and dropping whatever the client
// still sends (the HTTP parser discards the refused body's rest), and closes when the client
// closes its side, or after LINGER_MS at most. Go waits 500 ms without reading; reading on
// means the client is never blocked in its write, however slowly it reads the answer.

import type { Socket } from 'node:net';

/** The longest a refused upload's connection stays open after its answer. */
export const LINGER_MS = 5000;

export function closeLingering(socket: Socket, lingerMs = LINGER_MS): void {
  socket.destroySoon = function (this: Socket): void {
    if (this.destroyed) return;
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // The client has sent all it will (its side is closed): nothing more to wait for.
    this.once('end', () => this.destroy());
    this.end();
  };
}
