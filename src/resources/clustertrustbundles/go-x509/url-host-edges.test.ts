// More of net/url.Parse's answers, at the edges of its steps: the fragment cut before anything
// else, the query cut (with Go's ForceQuery case), opaque and relative forms, userinfo with a
// password, and IP literals with zones and ports. names.test.ts has the main table; each row
// here, too, was answered by Go's url.Parse.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goUrlHost } from './names.js';

/** [text, the URL's host, or undefined when url.Parse fails]. */
const URLS: [string, string | undefined][] = [
  ['#a:b', ''],
  ['#%zz', undefined],
  ['#', ''],
  ['http://u:p%zz@h/', undefined],
  ['http://u:%41@h/', 'h'],
  ['http://[%41::1%25eth0]/', undefined],
  ['http://[::1%25eth0]:/', '[::1%eth0]:'],
  ['http://[::1%25eth0]:x/', undefined],
  ['http://[::1]%41/', undefined],
  ['http://h?#', 'h'],
  ['?', ''],
  ['a?', ''],
  ['a:?', ''],
  ['//?', ''],
  ['http://h/a?b?', 'h'],
  ['http://h%41?/', undefined],
  ['http://h:80?x:y', 'h:80'],
  ['x:/y?', ''],
  ['/a:b', ''],
  ['a/b:c?d', ''],
  ['http://@h/', 'h'],
  ['http://:@h/', 'h'],
  ['http://u@/', ''],
  ['http://[]/', '[]'],
  ['http://[::1]:/', '[::1]:'],
  ['http://h:8%30/', undefined],
  ['http://%25/', '%'],
];

for (const [text, host] of URLS) {
  test(`url.Parse(${JSON.stringify(text)})`, () => {
    assert.equal(goUrlHost(text), host);
  });
}
