// Warnings as `Warning: 299 - "..."` header values that are always valid to send, as kube's
// warning recorder makes them: duplicates dropped, and once all the text would pass 4096
// characters, each warning cut to 256 (and no more added past the budget). The text is
// quoted with inner quotes and backslashes escaped (kubectl requires it) and control
// characters escaped; the header carries the text's UTF-8 bytes, as Go's server writes them
// (Node's HTTP/1.1 writes header strings byte per character, so UTF-8 goes in as latin1 text;
// HTTP/2 encodes header strings as UTF-8 itself).

import { validateHeaderValue } from 'node:http';

const TOTAL_BUDGET = 4 * 1024;
const ITEM_WHEN_TRUNCATING = 256;

const runes = (s: string): string[] => Array.from(s);

/** The warnings to send: unique, and within kube's size budget. */
export function boundedWarnings(warnings: readonly string[]): string[] {
  const unique = [...new Set(warnings.filter((w) => w.length > 0))];
  const total = unique.reduce((n, w) => n + runes(w).length, 0);
  if (total <= TOTAL_BUDGET) return unique;
  const out: string[] = [];
  let written = 0;
  for (const w of unique) {
    if (written >= TOTAL_BUDGET) break;
    const cut = runes(w).slice(0, ITEM_WHEN_TRUNCATING);
    out.push(cut.join(''));
    written += cut.length;
  }
  return out;
}

/** One warning's header value. `http1`: encode for Node's HTTP/1.1 writer (UTF-8 bytes as latin1). */
export function warningHeaderValue(text: string, http1: boolean): string {
  // JSON string syntax escapes quotes, backslashes, C0 controls and lone surrogates; DEL is escaped the same way.
  const quoted = JSON.stringify(text).replace(/\x7f/g, '\\u007f');
  const value = `299 - ${quoted}`;
  return http1 ? Buffer.from(value, 'utf8').toString('latin1') : value;
}

/** The Warning header's values for a response; a value that still cannot be sent is dropped, never an error. */
export function warningHeaderValues(warnings: readonly string[], http1: boolean): string[] {
  const out: string[] = [];
  for (const w of boundedWarnings(warnings)) {
    const value = warningHeaderValue(w, http1);
    try {
      validateHeaderValue('Warning', value);
      out.push(value);
    } catch {
      // Unreachable by construction; a warning is never worth failing a response for.
    }
  }
  return out;
}
