// Kubernetes' CEL libraries as 1.33 defines them (k8s.io/apiserver/pkg/cel/library): urls, ip,
// cidr, quantity, format, regex and authz, with the values and error texts of kube's own
// documentation and sources.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, value } from '../../../test/support/cel.js';

test('urls: parts of a URL as Go\'s net/url parses it', async () => {
  assert.deepEqual(
    await value("[url('https://example.com:80/path?query=val#fragment').getScheme(), url('https://example.com:80/path').getHost(), url('https://[::1]:80/path').getHostname(), url('https://example.com:80/path').getPort()]"),
    ['https', 'example.com:80', '::1', '80'],
  );
  assert.equal(await value("url('https://example.com/path with spaces/').getEscapedPath()"), '/path%20with%20spaces/');
  assert.deepEqual(await value("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()"), { k1: ['a'], k2: ['b', 'c'] });
  assert.equal(await value("url('/absolute-path').getScheme() == '' && !isURL('../relative-path') && isURL('https://x')"), true);
  assert.equal((await run("url('../relative-path')")).error, 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
});

test('ip: families, classes and canonical forms; zones and IPv4-mapped addresses refused', async () => {
  assert.deepEqual(await value("[ip('192.168.0.1').family(), ip('::1').family()]"), [4, 6]);
  assert.equal(
    await value("ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified() && ip('224.0.0.1').isLinkLocalMulticast() && ip('169.254.169.254').isLinkLocalUnicast() && ip('192.168.0.1').isGlobalUnicast()"),
    true,
  );
  assert.equal(await value("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1') && isIP('1.2.3.4') && !isIP('1.2.3.4.5')"), true);
  assert.equal(await value("string(ip('2001:db8:0::1'))"), '2001:db8::1');
  assert.equal((await run("ip('1.2.3.4.5')")).error, 'IP Address "1.2.3.4.5" parse error during conversion from string: ParseAddr("1.2.3.4.5"): IPv4 address too long');
  assert.equal((await run("ip('::ffff:1.2.3.4')")).error, 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
});

test('cidr: containment (with kube 1.33\'s corrected containsCIDR), prefix, masking', async () => {
  assert.equal(await value("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP('192.168.1.1')"), true);
  assert.equal(await value("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24')) && !cidr('10.0.0.0/16').containsCIDR('10.0.0.0/8')"), true);
  // Containment compares networks (the other prefix masked), so host bits do not matter.
  assert.equal(await value("cidr('10.0.0.0/8').containsCIDR('10.1.2.3/16') && !cidr('10.0.0.0/24').containsCIDR('10.0.0.1/16')"), true);
  assert.deepEqual(await value("[string(cidr('192.168.0.0/16').prefixLength()), string(cidr('192.168.1.5/16').masked()), string(cidr('192.168.1.5/16').ip())]"), ['16', '192.168.0.0/16', '192.168.1.5']);
  // kube words this error with its prefix twice (stringToCIDR wraps parseCIDR's message).
  assert.equal((await run("cidr('1.2.3.4/33')")).error, 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("1.2.3.4/33"): prefix length out of range');
});

test('quantity: comparison, arithmetic and integer conversion as resource.Quantity', async () => {
  assert.deepEqual(await value("[quantity('50k').asInteger(), quantity('-3').sign(), quantity('1Gi').compareTo(quantity('1G'))]"), [50000, -1, 1]);
  assert.equal(await value("quantity('50k').isInteger() && !quantity('1.5').isInteger() && quantity('1Mi').asApproximateFloat() == 1048576.0"), true);
  assert.equal(await value("quantity('50M').sub(quantity('20M')) == quantity('30M') && quantity('5').add(3).isLessThan(quantity('9')) && quantity('50k').sub(20000).asApproximateFloat() == 30000.0"), true);
  assert.equal(await value("isQuantity('1.3G') && !isQuantity('1.3GiB')"), true);
  assert.equal((await run("quantity('9999999999999999999999999999999999999G').asInteger()")).error, 'cannot convert value to integer');
  assert.equal((await run("quantity('1.3GiB')")).error, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
});

test('format: named formats validate with the messages of apimachinery\'s validators', async () => {
  assert.equal(await value("!format.dns1123Label().validate('my-label-name').hasValue() && format.named('dns1123Label').hasValue() && !format.named('foo').hasValue()"), true);
  assert.deepEqual(await value("format.dns1123Label().validate('Abc').value()"), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test('regex: find and findAll with RE2 semantics', async () => {
  assert.deepEqual(await value("['abc 123'.find('[0-9]+'), 'abc'.find('x')]"), ['123', '']);
  assert.deepEqual(await value("'abc 123 456'.findAll('[0-9]+')"), ['123', '456']);
  assert.deepEqual(await value("'abc 123 456'.findAll('[0-9]+', 1)"), ['123']);
  assert.equal((await run("'abc'.find('[')")).error, 'Illegal regex: error parsing regexp: missing closing ]: `[`');
  // RE2 has no backreferences: refused as Go refuses them, at compile time for a literal pattern.
  assert.match((await run("'aa'.matches('(a)\\\\1')")).compileError ?? '', /invalid matches argument/);
  assert.match((await run("'aa'.matches(dyn('(a)\\\\1'))")).error ?? '', /invalid escape sequence/);
});

test('authz: checks against the authorizer, with reasons', async () => {
  const allow = ['get deployments', 'get pods'];
  assert.equal(await value("authorizer.group('apps').resource('deployments').namespace('ns').name('x').check('get').allowed()", { allow }), true);
  assert.equal(await value("authorizer.group('').resource('pods').check('get').reason()", { allow }), 'by table');
  assert.equal(await value("authorizer.group('').resource('pods').check('delete').allowed() || authorizer.path('/healthz').check('get').allowed()", { allow }), false);
  assert.equal(await value("authorizer.group('').resource('pods').check('get').errored()", { allow }), false);
});
