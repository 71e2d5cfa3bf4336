import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compareUtf8, SortedKeys } from './sorted-keys.js';
import { CacheContents } from './cache-contents.js';

const utf8Order = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
const sign = (n: number): number => Math.sign(n);

describe('sorted keys', () => {
  test('compareUtf8 agrees with the byte order of the UTF-8 form, surrogates included', () => {
    const alphabet = ['a', 'b', '/', '-', 'é', '\uffff', '\ue000', '😀', '\ud7ff', 'z'];
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = (): string => Array.from({ length: rand(4) }, () => alphabet[rand(alphabet.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = word();
      assert.equal(sign(compareUtf8(a, b)), sign(utf8Order(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
  });

  test('stays sorted and duplicate-free through adds and deletes, and counts prefixes', () => {
    const keys = new SortedKeys();
    const truth = new Set<string>();
    let seed = 3;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 3000; i++) {
      const k = `/r/${['a', 'b'][rand(2)]}/${rand(200)}`;
      if (rand(3) === 0) {
        keys.delete(k);
        truth.delete(k);
      } else {
        keys.add(k);
        truth.add(k);
      }
    }
    const expected = [...truth].sort(utf8Order);
    assert.deepEqual(Array.from({ length: keys.size }, (_, i) => keys.at(i)), expected);
    assert.equal(keys.countPrefix('/r/a/'), expected.filter((k) => k.startsWith('/r/a/')).length);
    assert.equal(keys.countPrefix('/r/'), expected.length);
    assert.equal(keys.countPrefix('/s/'), 0);
  });

  test('keys with units above U+D7FF keep UTF-8 order as they come and go', () => {
    const keys = new SortedKeys();
    const all = ['/r/a', '/r/\uffff', '/r/😀', '/r/\ue000', '/r/z', '/r/é'];
    for (const k of all) keys.add(k);
    const list = () => Array.from({ length: keys.size }, (_, i) => keys.at(i));
    assert.deepEqual(list(), [...all].sort(utf8Order));
    keys.delete('/r/😀');
    keys.delete('/r/\uffff');
    keys.delete('/r/\ue000');
    keys.add('/r/b');
    assert.deepEqual(list(), ['/r/a', '/r/b', '/r/z', '/r/é']);
    assert.equal(keys.lowerBound('/r/😀'), 4);
    assert.equal(keys.upperBound('/r/a'), 1);
  });

  test('a cache pages through thousands of keys with limit and startAfter, each key once, in order', () => {
    const contents = new CacheContents(100);
    const value = new Uint8Array();
    const names = Array.from({ length: 2500 }, (_, i) => `/r/${(i * 7919) % 2500}`);
    contents.replace({ kvs: [], more: false, revision: 1 });
    names.forEach((key, i) => contents.apply({ type: 'put', revision: i + 2, kv: { key, value, createRevision: i + 2, modRevision: i + 2 } }));
    contents.apply({ type: 'put', revision: 3000, kv: { key: '/q/outside', value, createRevision: 3000, modRevision: 3000 } });
    contents.apply({ type: 'delete', revision: 3001, key: '/r/5', prevKv: { key: '/r/5', value, createRevision: 1, modRevision: 1 } });
    const seen: string[] = [];
    let startAfter: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = contents.list('/r/', { limit: 100, startAfter }, 3001);
      seen.push(...r.kvs.map((kv) => kv.key));
      if (!r.more) break;
      startAfter = r.kvs.at(-1)!.key;
    }
    const expected = names.filter((k) => k !== '/r/5').sort(utf8Order);
    assert.deepEqual(seen, expected);
    assert.equal(contents.count('/r/'), 2499);
  });
});
