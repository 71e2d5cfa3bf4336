// A port of the semantics of Go's encoding/pem Decode (not its code): which text counts as a
// block, which malformed candidates are silently skipped, and when decoding stops. Upstream's
// bundle validation is defined by these rules, so a generic PEM library would answer differently.
// Go's loop rescans the rest of the input for each candidate BEGIN line (quadratic: a 1 MiB
// bundle of BEGIN lines held the event loop for minutes); here what each rescan would find is
// remembered, so decoding stays linear with the same answers.

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const DASHES = '-----';

/** `s[0, end)` without trailing spaces and tabs (a loop: the regex `/[ \t]+$/` is quadratic on a long run of spaces). */
function trimRight(s: string, end: number): string {
  while (end > 0 && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  return s.slice(0, end);
}

/** First line (without `\r\n`/`\n` and trailing spaces/tabs) and everything after its newline. */
function getLine(data: string): [string, string] {
  const i = data.indexOf('\n');
  if (i < 0) return [trimRight(data, data.length), ''];
  const end = i > 0 && data[i - 1] === '\r' ? i - 1 : i;
  return [trimRight(data, end), data.slice(i + 1)];
}

/** What base64 text may hold before its spaces, tabs and newlines are dropped. */
const isBase64Text = (c: number): boolean =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x3d || c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding; `\r` and `\n` are ignored (spaces and tabs were removed already). */
function decodeStdBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  return STD_BASE64.test(compact) ? Buffer.from(compact, 'base64') : undefined;
}

/** Decodes the next block; `rest` is what follows it. No block: `{ block: undefined, rest: data }`. */
export function pemDecode(data: string): { block?: PemBlock; rest: string } {
  let rest = data;
  /** Where `rest` starts in `data` (it is always a suffix). */
  const at = (): number => data.length - rest.length;
  // Candidates only move forward, so the first `\nEND` at or after one candidate's text is also
  // the first after a later one's, until passed; -1 (none) stays true.
  let nextEnd = -2;
  const endFrom = (from: number): number => {
    if (nextEnd === -2 || (nextEnd >= 0 && nextEnd < from)) nextEnd = data.indexOf(`\n${END}`, from);
    return nextEnd;
  };
  // The last character before nextEnd that cannot be base64 text: a candidate whose body starts
  // at or before it fails to decode, without decoding it again.
  let badFor = -1;
  let lastBad = -1;
  const lastBadBefore = (end: number): number => {
    if (badFor !== end) {
      badFor = end;
      lastBad = end - 1;
      while (lastBad >= 0 && isBase64Text(data.charCodeAt(lastBad))) lastBad--;
    }
    return lastBad;
  };
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
      const end = endFrom(at());
      endIndex = end < 0 ? -1 : end - at();
      trailerIndex = endIndex + 1 + END.length;
    }
    if (endIndex < 0) continue;

    const trailerLength = type.length + DASHES.length;
    const trailer = rest.slice(trailerIndex, trailerIndex + trailerLength);
    if (trailer.length < trailerLength || !trailer.startsWith(type) || !trailer.endsWith(DASHES)) continue;
    if (getLine(rest.slice(trailerIndex + trailerLength))[0].length !== 0) continue;

    if (endIndex > 0 && lastBadBefore(at() + endIndex) >= at()) continue; // not base64
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
