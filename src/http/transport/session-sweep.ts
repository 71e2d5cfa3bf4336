// Closes HTTP/2 connections that nghttp2 has ended but Node keeps open. nghttp2 answers a
// connection error (a PRIORITY frame that depends on its own stream, a header block past its
// CONTINUATION limit, ...) with GOAWAY and wants to read no more; Node then stops reading the
// socket and never closes it, so the client's close goes unnoticed and the socket sits in
// CLOSE-WAIT until the connection's own deadline (32 s without a stream, 90 s after its last):
// an attacker making a few hundred such connections a second held hundreds of descriptors
// (test/attack/h2-floods, the PRIORITY flood). Go closes a connection as it sends that GOAWAY.
// Here, once a second, every connection without an open stream is told to read again: a live
// one is reading already (nothing happens); one nghttp2 has ended reads its client's close, and
// Node closes it.

import type { ServerHttp2Session } from 'node:http2';

export const SWEEP_INTERVAL_MS = 1000;

/** The native stream the session reads its socket through (the TLS socket's handle). */
interface ReadableHandle {
  readStart(): number;
}

export class SessionSweep {
  private readonly streamless = new Set<ServerHttp2Session>();
  private timer: NodeJS.Timeout | undefined;

  /** The session has no open stream (new, or its last one closed). */
  idle(session: ServerHttp2Session): void {
    this.streamless.add(session);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** The session has an open stream, or is gone. */
  busy(session: ServerHttp2Session): void {
    this.streamless.delete(session);
  }

  private sweep(): void {
    if (this.streamless.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const session of this.streamless) {
      if (session.destroyed) this.streamless.delete(session);
      // `session.socket` is Node's proxy for the TLS socket; its handle is what the session reads.
      else (session.socket as unknown as { _handle?: ReadableHandle } | undefined)?._handle?.readStart();
    }
  }
}
