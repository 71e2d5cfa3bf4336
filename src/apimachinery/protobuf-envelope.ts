// Just enough of Kubernetes' protobuf encoding to read the self-review requests kubectl sends
// (it has no flag to send JSON): the `k8s\0` magic, a runtime.Unknown envelope, and protobuf
// wire format (varints and length-delimited fields). Unknown fields are skipped.

import { badRequest } from './status-error.js';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Field number → the raw values of that field (bytes for length-delimited, bigint for varints). */
export type ProtoMessage = Map<number, (Buffer | bigint)[]>;

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = pos; i < buf.length && shift < 70n; i++) {
    const b = buf[i]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, i + 1];
    shift += 7n;
  }
  throw badRequest('invalid protobuf body: truncated varint');
}

export function decodeMessage(buf: Buffer): ProtoMessage {
  const out: ProtoMessage = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const [tag, next] = readVarint(buf, pos);
    pos = next;
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    let value: Buffer | bigint;
    if (wire === 0) {
      [value, pos] = readVarint(buf, pos);
    } else if (wire === 2) {
      const [len, start] = readVarint(buf, pos);
      const end = start + Number(len);
      if (end > buf.length) throw badRequest('invalid protobuf body: field runs past the end');
      value = buf.subarray(start, end);
      pos = end;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      continue;
    } else {
      throw badRequest(`invalid protobuf body: unsupported wire type ${wire}`);
    }
    // Appended in place: a body of a million repeated fields must not be copied a million times.
    const values = out.get(field);
    if (values) values.push(value);
    else out.set(field, [value]);
  }
  return out;
}

export const protoString = (m: ProtoMessage | undefined, field: number): string => {
  const v = m?.get(field)?.[0];
  return Buffer.isBuffer(v) ? v.toString('utf8') : '';
};

export const protoMessage = (m: ProtoMessage | undefined, field: number): ProtoMessage | undefined => {
  const v = m?.get(field)?.[0];
  return Buffer.isBuffer(v) ? decodeMessage(v) : undefined;
};

/** Unwraps `k8s\0` + runtime.Unknown: the object's apiVersion, kind and raw protobuf bytes. */
export function decodeEnvelope(body: Buffer): { apiVersion: string; kind: string; raw: ProtoMessage } {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw badRequest('invalid protobuf body: missing the k8s magic prefix');
  const unknown = decodeMessage(body.subarray(4));
  const typeMeta = protoMessage(unknown, 1);
  return { apiVersion: protoString(typeMeta, 1), kind: protoString(typeMeta, 2), raw: protoMessage(unknown, 2) ?? new Map() };
}
