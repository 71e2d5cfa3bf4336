// A port of the semantics of Go's encoding/pem Decode (not its code): which text counts as a
// block, which malformed candidates are silently skipped, and when decoding stops. Upstream's
// bundle validation is defined by these rules, so a generic PEM library would answer differently.

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const DASHES = '-----';

/** First line (without `\r\n`/`\n` and trailing spaces/tabs) and everything after its newline. */
function getLine(data: string): [string, string] {
  const i = data.indexOf('\n');
  if (i < 0) return [data.replace(/[ \t]+$/, ''), ''];
  const end = i > 0 && data[i - 1] === '\r' ? i - 1 : i;
  return [data.slice(0, end).replace(/[ \t]+$/, ''), data.slice(i + 1)];
}

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding; `\r` and `\n` are ignored (spaces and tabs were removed already). */
function decodeStdBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  return STD_BASE64.test(compact) ? Buffer.from(compact, 'base64') : undefined;
}

/** Decodes the next block; `rest` is what follows it. No block: `{ block: undefined, rest: data }`. */
export function pemDecode(data: string): { block?: PemBlock; rest: string } {
  let rest = data;
  for (;;) {
    if (rest.startsWith(BEGIN)) {
      rest = rest.slice(BEGIN.length);
    } else {
      const at = rest.indexOf(`\n${BEGIN}`);
      if (at < 0) return { rest: data };
      rest = rest.slice(at + 1 + BEGIN.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(DASHES)) continue;
    const type = typeLine.slice(0, -DASHES.length);

    const headers: Record<string, string> = {};
    let headerCount = 0;
    for (;;) {
      // Running out of input while reading headers ends decoding altogether.
      if (rest.length === 0) return { rest: data };
      const [line, next] = getLine(rest);
      const colon = line.indexOf(':');
      if (colon < 0) break;
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      headerCount++;
      rest = next;
    }

    let endIndex: number;
    let trailerIndex: number;
    if (headerCount === 0 && rest.startsWith(END)) {
      endIndex = 0;
      trailerIndex = END.length;
    } else {
      endIndex = rest.indexOf(`\n${END}`);
      trailerIndex = endIndex + 1 + END.length;
    }
    if (endIndex < 0) continue;

    const trailerLength = type.length + DASHES.length;
    const trailer = rest.slice(trailerIndex, trailerIndex + trailerLength);
    if (trailer.length < trailerLength || !trailer.startsWith(type) || !trailer.endsWith(DASHES)) continue;
    if (getLine(rest.slice(trailerIndex + trailerLength))[0].length !== 0) continue;

    const bytes = decodeStdBase64(rest.slice(0, endIndex).replace(/[ \t]/g, ''));
    if (!bytes) continue;
    const afterEnd = getLine(rest.slice(endIndex === 0 ? END.length : endIndex + 1 + END.length))[1];
    return { block: { type, headers, bytes }, rest: afterEnd };
  }
}

/** Every block of `data`, in order, as Go's `for { b, rest = pem.Decode(rest); if b == nil { break } }`. */
export function pemDecodeAll(data: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let rest = data;
  for (;;) {
    const r = pemDecode(rest);
    if (!r.block) return blocks;
    blocks.push(r.block);
    rest = r.rest;
  }
}
