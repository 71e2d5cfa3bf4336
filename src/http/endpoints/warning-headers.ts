// Warnings as `Warning: 299 - "..."` header values that are always valid to send, as kube's
// warning recorder makes them: duplicates dropped, and once all the text would pass 4096
// characters, each warning cut to 256 (and no more added past the budget). The text is
// quoted with inner quotes and backslashes escaped (kubectl requires it) and control
// characters escaped; the header carries the text's UTF-8 bytes, as Go's server writes them
// (Node writes header strings one byte per character, on HTTP/1.1 and HTTP/2 alike, so the
// UTF-8 goes in as latin1 text: a character above U+00FF would otherwise be refused on
// HTTP/1.1 and cut to its low byte on HTTP/2).

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

/** One warning's header value, as Node must be given it (UTF-8 bytes as latin1 characters). */
export function warningHeaderValue(text: string): string {
  // JSON string syntax escapes quotes, backslashes, C0 controls and lone surrogates; DEL is escaped the same way.
  const quoted = JSON.stringify(text).replace(/\x7f/g, '\\u007f');
  const value = `299 - ${quoted}`;
  return Buffer.from(value, 'utf8').toString('latin1');
}

/** The Warning header's values for a response; a value that still cannot be sent is dropped, never an error. */
export function warningHeaderValues(warnings: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of boundedWarnings(warnings)) {
    const value = warningHeaderValue(w);
    try {
      validateHeaderValue('Warning', value);
      out.push(value);
    } catch {
      // Unreachable by construction; a warning is never worth failing a response for.
    }
  }
  return out;
}
