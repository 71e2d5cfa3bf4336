// The bearer token of a request, read from its Authorization header as kube's bearertoken
// authenticator reads it: the first header, spaces trimmed from both ends (Go's TrimSpace), split
// at single spaces into at most three parts; the first is "bearer" in any case and the token is
// the second. So "Bearer t extra" is the token t, and "Bearer  t" (two spaces) is no token at all:
// kube ignores it, with a warning.

import type { AuthRequest } from './authenticator.js';

/** ASCII white space, as Go's unicode.IsSpace sees it. */
const ASCII_SPACE = new Set(['\t', '\n', '\v', '\f', '\r', ' ']);
/**
 * The other spaces Go's strings.TrimSpace removes, as the UTF-8 bytes a header value holds one per
 * character (latin1, as Node gives them): U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
 * U+202F, U+205F and U+3000.
 */
const UNICODE_SPACES: readonly string[] = [
  '\xc2\x85', '\xc2\xa0', '\xe1\x9a\x80',
  ...Array.from({ length: 11 }, (_, i) => `\xe2\x80${String.fromCharCode(0x80 + i)}`),
  '\xe2\x80\xa8', '\xe2\x80\xa9', '\xe2\x80\xaf', '\xe2\x81\x9f', '\xe3\x80\x80',
];

/** The length of the space `s` starts (atEnd: ends) with at `i`, 0 if none. A loop, not a regular expression: a header of spaces must not cost time by the square of its length. */
function spaceAt(s: string, i: number, atEnd: boolean): number {
  if (ASCII_SPACE.has(atEnd ? s.charAt(i - 1) : s.charAt(i))) return 1;
  for (const u of UNICODE_SPACES) {
    if (atEnd ? s.slice(Math.max(0, i - u.length), i) === u : s.startsWith(u, i)) return u.length;
  }
  return 0;
}

/** Go's TrimSpace: the spaces at the start go, then those at the end of what is left. */
function goTrimSpace(s: string): string {
  let start = 0;
  for (let n = spaceAt(s, start, false); n > 0; n = spaceAt(s, start, false)) start += n;
  const rest = s.slice(start);
  let end = rest.length;
  for (let n = spaceAt(rest, end, true); n > 0; n = spaceAt(rest, end, true)) end -= n;
  return rest.slice(0, end);
}

export function bearerToken(req: AuthRequest): string | undefined {
  const h = req.headers.authorization;
  const header = Array.isArray(h) ? h[0] : h;
  if (header === undefined) return undefined;
  const value = goTrimSpace(header);
  const space = value.indexOf(' ');
  if (space < 0 || value.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const rest = value.slice(space + 1);
  const end = rest.indexOf(' ');
  const token = end < 0 ? rest : rest.slice(0, end);
  return token === '' ? undefined : token;
}
