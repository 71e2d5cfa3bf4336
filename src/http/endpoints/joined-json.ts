// A JSON list body made of stored items' cached bytes (object-codec.ts servedJsonOf: each an
// object's JSON and a newline), joined as `head item,item,... tail` without building the whole:
// a large list is written a slice at a time (paced-body.ts), each slice copied from the items as
// it is sent, so a list being written holds only its item references and one slice (kube's
// streaming list encoder, likewise, writes item by item).

import type { SlicedBody } from '../transport/paced-body.js';

const COMMA = Buffer.from(',');

export class JoinedJson implements SlicedBody {
  readonly length: number;

  /** `items` each end in a newline, which is left out; `,` goes between them. */
  constructor(
    private readonly head: Buffer,
    private readonly items: readonly Buffer[],
    private readonly tail: Buffer,
  ) {
    let length = head.length + tail.length + Math.max(0, items.length - 1);
    for (const item of items) length += item.length - 1;
    this.length = length;
  }

  /** The pieces in order, as [bytes, end] (an item's end leaves its newline out). */
  private *pieces(): Generator<[Buffer, number]> {
    yield [this.head, this.head.length];
    for (let i = 0; i < this.items.length; i++) {
      if (i) yield [COMMA, 1];
      const item = this.items[i]!;
      yield [item, item.length - 1];
    }
    yield [this.tail, this.tail.length];
  }

  *slices(size: number): Generator<Buffer> {
    let left = this.length;
    let slice = Buffer.allocUnsafeSlow(Math.min(size, left));
    let filled = 0;
    for (const [bytes, end] of this.pieces()) {
      for (let at = 0; at < end; ) {
        const copied = bytes.copy(slice, filled, at, end);
        at += copied;
        filled += copied;
        if (filled === slice.length && left > filled) {
          left -= filled;
          yield slice;
          slice = Buffer.allocUnsafeSlow(Math.min(size, left));
          filled = 0;
        }
      }
    }
    if (filled) yield slice;
  }

  /** Every small list takes this path: a plain loop, without the pieces' iterator. */
  whole(): Buffer {
    const out = Buffer.allocUnsafe(this.length);
    let filled = this.head.copy(out, 0);
    this.items.forEach((item, i) => {
      if (i) filled += COMMA.copy(out, filled);
      filled += item.copy(out, filled, 0, item.length - 1);
    });
    this.tail.copy(out, filled);
    return out;
  }
}
