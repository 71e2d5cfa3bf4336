// The CEL layer against cel-go's behaviour as Kubernetes 1.33 configures it: compile errors in
// cel-go's words and layout, runtime errors, the standard library (strings, timestamps,
// durations, heterogeneous equality, optionals, two-variable comprehensions) and the cost limit.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, value } from '../../test/support/cel.js';

test('compile errors are reported as cel-go reports them, with the caret under the offending column', async () => {
  assert.equal((await run('1 + "a" == 1')).compileError, `compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + "a" == 1\n | ..^`);
  assert.equal((await run('x')).compileError, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^");
  assert.equal((await run('request.foo')).compileError, "compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo\n | .......^");
  assert.equal((await run("[1, 'a']")).compileError, "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^");
  // Literal arguments that can never work are compile errors (cel-go's literal validators).
  assert.equal((await run("duration('1x')")).compileError, "compilation failed: ERROR: <input>:1:10: invalid duration argument\n | duration('1x')\n | .........^");
  assert.equal((await run("'a'.matches('[')")).compileError, "compilation failed: ERROR: <input>:1:13: invalid matches argument\n | 'a'.matches('[')\n | ............^");
  assert.match((await run("timestamp('nope')")).compileError ?? '', /invalid timestamp argument/);
});

test('runtime errors are values: no such key, division by zero, and the logical operators absorb them', async () => {
  assert.equal((await run('object.spec.foo == 1', { vars: { object: { spec: {} } } })).error, 'no such key: foo');
  assert.equal((await run('1 / 0 == 1')).error, 'division by zero');
  assert.equal(await value('1 / 0 == 1 || true'), true);
  assert.equal(await value('false && 1 / 0 == 1'), false);
  assert.equal((await run('9223372036854775807 + 1 > 0')).error, 'integer overflow');
});

test('equality is heterogeneous across numeric types at runtime (statically, == needs one type), and has() tests presence', async () => {
  assert.match((await run('1 == 1.0')).compileError ?? '', /found no matching overload for '_==_' applied to '\(int, double\)'/);
  assert.equal(await value('dyn(1) == 1.0 && dyn(1u) == 1 && 2.0 > 1 && 1u < 2.5'), true);
  assert.equal(await value('has(object.spec.x) || !has(object.spec.y)', { vars: { object: { spec: { x: 1 } } } }), true);
  assert.equal(await value("{'a': dyn(1)} == {'a': dyn(1.0)}"), true);
});

test('strings: the extended library Kubernetes enables', async () => {
  assert.equal(await value("'abc'.charAt(1) + 'ABC'.lowerAscii() + 'x'.upperAscii()"), 'babcX');
  assert.equal(await value("'hello world'.split(' ').join('-')"), 'hello-world');
  assert.equal(await value("'a-b-c'.replace('-', '+', 1)"), 'a+b-c');
  assert.deepEqual(await value("['  x '.trim(), 'abcdef'.substring(2, 4), string('abc'.indexOf('c')), string('abcabc'.lastIndexOf('b'))]"), ['x', 'cd', '2', '4']);
  assert.equal(await value("strings.quote('a\"b')"), '"a\\"b"');
  // List literals are homogeneous in Kubernetes' environment: mixed arguments go through dyn.
  assert.equal(await value("'%s has %d items, %.2f%%'.format([dyn('list'), dyn(3), dyn(12.5)])"), 'list has 3 items, 12.50%');
  assert.match((await run("'%s'.format(['a', 1])")).compileError ?? '', /expected type 'string' but found 'int'/);
  assert.equal(await value("'abc'.matches('^a.c$') && !'ABC'.matches('^a')"), true);
});

test('timestamps and durations', async () => {
  assert.equal(await value("timestamp('2024-02-29T10:00:00Z').getDayOfWeek()"), 4);
  assert.equal(await value("duration('1h30m') + duration('30m') == duration('2h')"), true);
  assert.equal(await value("string(timestamp('2024-01-01T00:00:00Z') + duration('36h'))"), '2024-01-02T12:00:00Z');
  assert.equal(await value("timestamp('2024-01-01T00:00:00Z').getHours('America/New_York')"), 19);
});

test('macros, optionals and two-variable comprehensions', async () => {
  assert.deepEqual(await value('[1, 2, 3].map(x, x * 2)'), [2, 4, 6]);
  assert.deepEqual(await value('[1, 2, 3, 4].filter(x, x % 2 == 0)'), [2, 4]);
  assert.equal(await value("1 > 2 ? 'a' : 'b'"), 'b');
  assert.match((await run("true ? 1 : 'a'")).compileError ?? '', /found no matching overload for '_\?_:_' applied to '\(bool, int, string\)'/);
  assert.equal(await value('[1, 2, 3].exists_one(x, x > 2)'), true);
  assert.equal(await value("[10, 20].all(i, v, v == (i + 1) * 10) && {'a': 1}.exists(k, v, k == 'a' && v == 1)"), true);
  assert.equal(await value("object.metadata.?labels.?team.orValue('none')", { vars: { object: { metadata: {} } } }), 'none');
  assert.equal(await value("optional.of(2).value() + optional.none().orValue(3)"), 5);
  assert.equal(await value("{'a': 1}[?'b'].hasValue()"), false);
});

test('sets and lists libraries', async () => {
  assert.equal(await value('sets.contains([1, 2, 3], [2, 3]) && sets.equivalent([1, 1, 2], [2, 1]) && sets.intersects([1], [1, 5])'), true);
  assert.deepEqual(await value('[[3, 1, 2].max(), [3, 1, 2].min(), [1, 2, 3].sum(), [1, 2, 2].lastIndexOf(2), [1, 2, 2].indexOf(2)]'), [3, 1, 6, 2, 1]);
  assert.equal(await value('[1, 2, 3].isSorted() && ![2, 1].isSorted()'), true);
  assert.equal((await run('[].max()')).error, 'max called on empty list');
});

test('an expression past the per-call cost limit stops with cel-go\'s message, however it got there', async () => {
  const nested = 'object.items.all(a, object.items.all(b, object.items.all(c, a + b + c >= 0)))';
  const items = Array.from({ length: 200 }, (_, i) => i);
  const r = await run(nested, { vars: { object: { items } } });
  assert.equal(r.error, 'operation cancelled: actual cost limit exceeded');
  assert.ok(r.costLimitExceeded);
  // The same expression over a small list is cheap and passes.
  assert.equal(await value(nested, { vars: { object: { items: [1, 2, 3] } } }), true);
  // A lower limit refuses earlier: the cost is charged as the evaluation goes.
  const small = await run("object.items.map(x, string(x)).join(',').size() > 0", { vars: { object: { items } }, limit: 100 });
  assert.equal(small.error, 'operation cancelled: actual cost limit exceeded');
});
