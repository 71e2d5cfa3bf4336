// Large response bodies (a list of thousands of objects) are written a slice at a time, the next
// slice only once the previous one has left for the network.
//
// Why: one write of a whole multi-megabyte body is encrypted at once into the TLS connection's
// native buffers, outside the JavaScript heap and invisible to stream backpressure (the socket's
// high-water mark is raised far above object sizes, see server.ts). A client that reads slowly,
// or 1,000 of them during a storm, then keeps every unsent list in native memory, and the TLS
// buffer of each connection stays at its largest size until the connection closes. kube-apiserver
// has the same bound built in: Go's handler blocks in Write while the client reads. Paced, a
// connection holds at most one slice; a list's slices are copied from its items as they go
// (joined-json.ts), so the whole body never exists, and how many large bodies are being written at
// once is bounded by the in-flight seats (filters/work-estimate.ts: a large list is wide).
//
// The returned promise settles when the body is written or the response is gone, so the handler
// (and with it the request timeout, filters/timeout.ts) lasts as long as the writing: a client
// still reading when the request's time is up has its response aborted, as kube's is.

import type { ServerResponse, OutgoingHttpHeaders } from 'node:http';
import { constants, type Http2ServerResponse } from 'node:http2';
import { responseClosed } from './response-closed.js';

/** Bodies at least this big are paced; smaller ones are one write. */
export const PACED_BODY_BYTES = 256 * 1024;
/** One slice: TLS records are 16 KiB, so four records per write. */
export const PACED_SLICE_BYTES = 64 * 1024;

type RawResponse = ServerResponse | Http2ServerResponse;

/** A body known by its length, whose bytes can be made a slice at a time or all at once. */
export interface SlicedBody {
  readonly length: number;
  /** The bytes in slices of `size` (the last may be shorter), made as they are asked for. */
  slices(size: number): Iterator<Buffer>;
  /** The bytes in one Buffer (a small body, or one the audit log records). */
  whole(): Buffer;
}

/** A body already in one Buffer: its slices are views, not copies. */
export function bufferBody(bytes: Buffer): SlicedBody {
  return {
    length: bytes.length,
    *slices(size) {
      for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
    },
    whole: () => bytes,
  };
}

/** Writes the head, then the body a slice at a time; settles when done or abandoned. */
export function writePaced(res: RawResponse, code: number, headers: OutgoingHttpHeaders, body: SlicedBody, sliceBytes = PACED_SLICE_BYTES): Promise<void> {
  // Gone before the first byte: its 'close' has passed and will not come again.
  if (responseClosed(res)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const slices = body.slices(sliceBytes);
    const over = (): void => {
      res.off('close', over);
      res.off('finish', over);
      res.off('error', over);
      resolve();
    };
    // 'close' covers a client gone mid-body; an error on a destroyed response ends it too (and
    // must have a listener: an unheard 'error' would end the process).
    res.once('close', over);
    res.once('finish', over);
    res.once('error', over);
    const next = (err?: Error | null): void => {
      if (err || res.destroyed || res.writableEnded) return;
      const slice = slices.next();
      if (slice.done) res.end();
      else (res as ServerResponse).write(slice.value, next);
    };
    res.writeHead(code, headers);
    next();
  });
}

/**
 * Cuts off a response that has begun, as Go's server does for a handler that aborts: an HTTP/1.1
 * connection is closed; an HTTP/2 stream is reset with INTERNAL_ERROR (a reset without an error
 * code would read as a normal end to the client, with the body short) and destroyed at once, so
 * that it is over here even when its connection no longer moves: Node sometimes stops reading
 * and writing an HTTP/2 connection whose client left with data unread, and a stream only reset
 * would then wait for its 'close' for ever (and hold whatever waits for it: in-flight seats).
 */
export function abortResponse(res: RawResponse): void {
  if (!('stream' in res)) return void res.destroy();
  res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  res.stream.destroy();
}
