// Test support for the filters' unit tests: a RequestState over a fake request and reply that
// record what the filter did (headers, status, sent body), and a response that can be closed.

import { EventEmitter } from 'node:events';
import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import { emptyRequestInfo, silentLogger, type UserInfo } from '../../apimachinery/request-context.js';
import { Cancellation, type RequestState } from './filter.js';

export interface FakeExchange {
  state: RequestState;
  headers: Record<string, unknown>;
  /** Ends the response (emits 'close' on the raw response). */
  close(): void;
}

export interface FakeOptions {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: Buffer;
  user?: UserInfo;
}

export function fakeExchange(o: FakeOptions = {}): FakeExchange {
  const raw = Object.assign(new EventEmitter(), { statusCode: 200, closed: false, getHeader: () => undefined, socket: {} });
  const headers: Record<string, unknown> = {};
  const reply = {
    raw,
    sent: false,
    elapsedTime: 0,
    header(name: string, value: unknown) {
      headers[name.toLowerCase()] = value;
      return reply;
    },
    getHeader: (name: string) => headers[name.toLowerCase()],
  };
  const req = { method: o.method ?? 'GET', url: o.url ?? '/', headers: { ...(o.headers ?? {}) }, body: o.body, raw: { socket: {}, headersDistinct: Object.fromEntries(Object.entries(o.headers ?? {}).map(([k, v]) => [k, [v]])), rawHeaders: [] } };
  const state: RequestState = {
    req: req as unknown as HttpRequest,
    reply: reply as unknown as HttpReply,
    requestId: 'test-request',
    receivedAt: performance.now(),
    path: '',
    query: new URLSearchParams(),
    pretty: false,
    info: emptyRequestInfo(),
    logger: silentLogger,
    body: o.body,
    isPublic: false,
    longRunning: false,
    authenticated: o.user,
    cancellation: new Cancellation(raw),
  };
  return {
    state,
    headers,
    close() {
      raw.closed = true;
      raw.emit('close');
    },
  };
}
