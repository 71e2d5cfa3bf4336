// DER for the differential test: encoders to assemble certificates field by field (Go's parser
// never checks signatures, so a certificate needs no real one), and a tree of a DER buffer that
// can be written back with a chosen element's header encoded oddly (long-form, non-minimal,
// indefinite, high-tag-number) while every enclosing length stays right.

export type Bytes = Uint8Array;

export const cat = (...parts: Bytes[]): Buffer => Buffer.concat(parts);

export function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return Buffer.from([0x80 | out.length, ...out]);
}

export const tlv = (tag: number, ...contents: Bytes[]): Buffer => {
  const body = cat(...contents);
  return cat(Buffer.from([tag]), lengthBytes(body.length), body);
};

export const seq = (...c: Bytes[]): Buffer => tlv(0x30, ...c);
export const set = (...c: Bytes[]): Buffer => tlv(0x31, ...c);

export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [];
  const push = (v: number): void => {
    const groups: number[] = [v & 0x7f];
    for (let x = Math.floor(v / 128); x > 0; x = Math.floor(x / 128)) groups.unshift((x & 0x7f) | 0x80);
    out.push(...groups);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return tlv(0x06, Buffer.from(out));
}

export function int(v: bigint | number): Buffer {
  let x = BigInt(v);
  const bytes: number[] = [];
  if (x === 0n) return tlv(0x02, Buffer.from([0]));
  const neg = x < 0n;
  for (;;) {
    bytes.unshift(Number(x & 0xffn));
    x >>= 8n;
    if (!neg && x === 0n && (bytes[0]! & 0x80) === 0) break;
    if (neg && x === -1n && (bytes[0]! & 0x80) !== 0) break;
  }
  return tlv(0x02, Buffer.from(bytes));
}

export const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
export const octets = (...c: Bytes[]): Buffer => tlv(0x04, ...c);
export const bits = (b: Bytes, unused = 0): Buffer => tlv(0x03, Buffer.from([unused]), b);
export const str = (tag: number, s: string | Bytes): Buffer => tlv(tag, typeof s === 'string' ? Buffer.from(s, 'latin1') : s);
export const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
export const NULL = Buffer.from([0x05, 0x00]);

export interface Node {
  tag: number;
  /** Constructed and parsed into children (undefined: primitive or opaque contents). */
  children?: Node[];
  content?: Buffer;
}

/** Parses well-formed DER into a tree; constructed elements (tag bit 0x20) are descended into. */
export function parseTree(der: Buffer): Node[] {
  const out: Node[] = [];
  let p = 0;
  while (p < der.length) {
    const tag = der[p]!;
    let len = der[p + 1]!;
    let header = 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + der[p + 2 + i]!;
      header = 2 + n;
    }
    const content = der.subarray(p + header, p + header + len);
    out.push(tag & 0x20 ? { tag, children: parseTree(content) } : { tag, content: Buffer.from(content) });
    p += header + len;
  }
  return out;
}

export type HeaderStyle = 'long-form' | 'leading-zero' | 'indefinite' | 'high-tag' | 'five-byte';

/** Every node in document order (for choosing which one to encode oddly). */
export function allNodes(nodes: Node[], acc: Node[] = []): Node[] {
  for (const n of nodes) {
    acc.push(n);
    if (n.children) allNodes(n.children, acc);
  }
  return acc;
}

function header(tag: number, len: number, style: HeaderStyle | undefined): Buffer {
  switch (style) {
    case 'long-form':
      return len < 0x80 ? Buffer.from([tag, 0x81, len]) : cat(Buffer.from([tag]), lengthBytes(len));
    case 'leading-zero': {
      const l = lengthBytes(len);
      const raw = len < 0x80 ? Buffer.from([len]) : l.subarray(1);
      return cat(Buffer.from([tag, 0x80 | (raw.length + 1), 0]), raw);
    }
    case 'five-byte':
      return cat(Buffer.from([tag, 0x85, 0, (len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff]));
    case 'high-tag':
      return cat(Buffer.from([(tag & 0xe0) | 0x1f, tag & 0x1f]), lengthBytes(len));
    default:
      return cat(Buffer.from([tag]), lengthBytes(len));
  }
}

/** Writes the tree back; `odd` (if any) gets `style` for its header. */
export function writeTree(nodes: Node[], odd?: Node, style?: HeaderStyle): Buffer {
  return cat(
    ...nodes.map((n) => {
      const body = n.children ? writeTree(n.children, odd, style) : n.content!;
      if (n === odd && style === 'indefinite') return cat(Buffer.from([n.tag, 0x80]), body, Buffer.from([0, 0]));
      return cat(header(n.tag, body.length, n === odd ? style : undefined), body);
    }),
  );
}
