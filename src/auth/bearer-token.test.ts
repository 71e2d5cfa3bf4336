// The Authorization header read as kube's bearertoken authenticator reads it: TrimSpace, then at
// most three parts split at single spaces, "bearer" in any case, the second part the token.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken } from './bearer-token.js';

const read = (authorization: string | string[] | undefined): string | undefined => bearerToken({ headers: { authorization } });
/** A header value as Node holds it: the UTF-8 bytes of `text`, one character each. */
const bytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

test('the second part after one space, whatever follows it', () => {
  assert.equal(read('Bearer abc'), 'abc');
  assert.equal(read('bEaReR abc'), 'abc');
  assert.equal(read('Bearer abc def'), 'abc');
  assert.equal(read('Bearer abc  def ghi'), 'abc');
  assert.equal(read(['Bearer one', 'Bearer two']), 'one');
});

test('no token: another scheme, no space, two spaces before the token, a tab', () => {
  for (const h of [undefined, '', '   ', 'Bearer', 'Bearer ', 'Bearerabc', 'Basic abc', 'xBearer abc', 'Bearer  abc', 'Bearer\tabc', 'Bearer\t abc', 'Bear abc', 'Bearerx abc', 'Bearers', 'bearer']) {
    assert.equal(read(h), undefined, JSON.stringify(h));
  }
  assert.equal(read([]), undefined);
});

test("Go's TrimSpace first: ASCII spaces and the UTF-8 of Unicode spaces at either end", () => {
  assert.equal(read(' \t\r\n\v\fBearer abc \t\v\f\r\n'), 'abc');
  // A tab is no separator: trimmed at the ends only, else part of the token.
  assert.equal(read('\tBearer abc\t'), 'abc');
  assert.equal(read('Bearer abc\tdef'), 'abc\tdef');
  for (const space of ['\u0085', '\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000']) {
    assert.equal(read(bytes(`${space}${space}Bearer abc${space}`)), 'abc', `U+${space.codePointAt(0)!.toString(16)}`);
  }
  // Not spaces: a lone Latin-1 byte (invalid UTF-8 to Go), U+200B, U+FEFF; and nothing inside is trimmed.
  assert.equal(read('\u00a0Bearer abc'), undefined);
  assert.equal(read(`Bearer abc\u00a0`), 'abc\u00a0');
  assert.equal(read(bytes('\u200bBearer abc')), undefined);
  assert.equal(read(bytes('Bearer abc\ufeff')), bytes('abc\ufeff'));
  assert.equal(read(bytes('Bearer abc\u2000x')), bytes('abc\u2000x'));
  // A space cut short at the end is no space; the bytes before it stay.
  assert.equal(read('Bearer abc\xe2\x80'), 'abc\xe2\x80');
});

test('a header of nothing but spaces costs a pass, not the square of its length', () => {
  const long = `Bearer abc${' '.repeat(200_000)}x${' '.repeat(200_000)}`;
  assert.equal(read(long), 'abc');
  assert.equal(read(' '.repeat(400_000)), undefined);
});
