// Whether a new connection has sent its whole ClientHello yet, read from the bytes before TLS
// sees them: the handshake gate (handshake-gate.ts) takes only connections whose ClientHello is
// in, so a client that sent its hello is never queued behind sockets that sent one byte, or
// trickle theirs, or nothing at all (each of which only costs its descriptor and these bytes until
// its deadline).
//
// A ClientHello is one handshake message (type 1, a 3-byte length) carried in one or more TLS
// records of type 22 (RFC 8446 5.1). Anything else (another record type, a record or message of
// a size no TLS allows, a message that is not a ClientHello) is handed to TLS at once, which
// refuses it; so is a hello past MAX_BUFFERED bytes (Go refuses handshake messages past 64 KiB;
// real hellos are 0.5–2 KB): TLS then reads the rest itself, holding no slot while it waits.
// The bytes are looked at only when enough have come to decide, so a hello sent a byte at a time
// is not copied again per byte.

const RECORD_HEADER = 5;
const HANDSHAKE_RECORD = 0x16;
const CLIENT_HELLO = 1;
/** TLSPlaintext.length at most 2^14 (RFC 8446 5.1; 2^14 + 2048 for TLS 1.2 ciphertext). */
const MAX_RECORD = (1 << 14) + 2048;
/** Buffered at most this much before the connection is handed to TLS anyway. */
export const MAX_BUFFERED = 16 * 1024;

export class ClientHelloReader {
  private chunks: Buffer[] = [];
  private total = 0;
  /** Bytes needed before looking again. */
  private needed = RECORD_HEADER;

  /** Adds bytes read; true once TLS should have them (the hello is whole, or it is no hello). */
  push(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.total += chunk.length;
    if (this.total >= MAX_BUFFERED) return true;
    if (this.total < this.needed) return false;
    return this.examine();
  }

  /** Everything read so far, in one Buffer (for TLS to read again). */
  bytes(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.total)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private examine(): boolean {
    const buf = this.bytes();
    let at = 0;
    /** The handshake message's bytes seen so far, across records, and its length once known. */
    const head: number[] = [];
    let body = 0;
    let messageLength = -1;
    for (;;) {
      if (buf.length < at + RECORD_HEADER) {
        this.needed = at + RECORD_HEADER;
        return false;
      }
      const length = buf.readUInt16BE(at + 3);
      if (buf[at] !== HANDSHAKE_RECORD || length === 0 || length > MAX_RECORD) return true;
      const payload = buf.subarray(at + RECORD_HEADER, Math.min(buf.length, at + RECORD_HEADER + length));
      let i = 0;
      while (head.length < 4 && i < payload.length) head.push(payload[i++]!);
      if (head.length === 4 && messageLength < 0) {
        if (head[0] !== CLIENT_HELLO) return true;
        messageLength = (head[1]! << 16) | (head[2]! << 8) | head[3]!;
      }
      body += payload.length - i;
      if (messageLength >= 0 && body >= messageLength) return true;
      if (payload.length < length) {
        // The record is not all in: look again when it is (or when the message would end, if sooner).
        const messageLeft = messageLength >= 0 ? messageLength - body : length;
        this.needed = at + RECORD_HEADER + Math.min(length, payload.length + messageLeft);
        return false;
      }
      at += RECORD_HEADER + length;
    }
  }
}
