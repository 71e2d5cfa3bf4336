import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRequest } from '../transport/exchange.js';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { MAX_SEATS, noteListed, WorkEstimator } from './work-estimate.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const info = (method: string, url: string) => {
  const u = new URL(url, 'https://x');
  return { info: resolveRequestInfo(method, u.pathname, u.searchParams), query: u.searchParams };
};

/** Runs one list that returned `n` objects through the estimator. */
function listed(e: WorkEstimator, url: string, n: number): void {
  const req = {} as HttpRequest;
  noteListed(req, n);
  e.learn(req, info('GET', url).info);
}

test('a list is one seat per 100 objects the latest list of its resource returned, 1 to 10', () => {
  const e = new WorkEstimator();
  const seats = (method: string, url: string) => {
    const r = info(method, url);
    return e.seats(r.info, r.query);
  };
  assert.equal(seats('GET', SC), 1, 'nothing known yet');
  listed(e, SC, 250);
  assert.equal(seats('GET', SC), 3);
  assert.equal(seats('GET', `${SC}?labelSelector=a%3Db`), 3, 'a selector still reads the whole collection');
  assert.equal(seats('GET', `${SC}?limit=50`), 1, 'a page is at most its limit');
  assert.equal(seats('GET', CTB), 1, 'each resource has its own count');
  listed(e, SC, 1_000_000);
  assert.equal(seats('GET', SC), MAX_SEATS);
  for (const [method, url] of [['GET', `${SC}/x`], ['POST', SC], ['DELETE', `${SC}/x`], ['GET', '/api']]) assert.equal(seats(method!, url!), 1, `${method} ${url}`);
  listed(e, SC, 0);
  assert.equal(seats('GET', SC), 1, 'an emptied collection is cheap again');
});

test('a request that did not list teaches nothing', () => {
  const e = new WorkEstimator();
  e.learn({} as HttpRequest, info('GET', SC).info);
  listed(e, `${SC}/x`, 5000);
  const r = info('GET', SC);
  assert.equal(e.seats(r.info, r.query), 1);
});

test('a limit narrows only when it is a positive whole number; only lists teach', () => {
  const e = new WorkEstimator();
  listed(e, SC, 950);
  const seats = (url: string) => {
    const r = info('GET', url);
    return e.seats(r.info, r.query);
  };
  assert.equal(seats(SC), 10);
  for (const limit of ['abc', '-5', '0', '2.5']) assert.equal(seats(`${SC}?limit=${limit}`), 10, `limit=${limit}`);
  assert.equal(seats(`${SC}?limit=101`), 2);
  // A get that reported a count (it never does) teaches nothing either.
  const req = {} as HttpRequest;
  noteListed(req, 5);
  e.learn(req, info('GET', `${CTB}/x`).info);
  assert.equal(e.seats(info('GET', CTB).info, new URLSearchParams()), 1);
});
