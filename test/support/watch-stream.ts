// A client watch kept open while a test does other things: it collects every event line, says
// how (and whether) the stream ended, and can wait, bounded, for an event matching a predicate.

import https from 'node:https';
import type { TestServer } from '../e2e/harness.js';

export interface WatchStream {
  /** The HTTP status of the watch response (0 until headers arrive). */
  status(): number;
  events: any[];
  /** Resolves with how the stream ended: 'end', 'aborted' or 'error: …'. */
  ended: Promise<string>;
  isEnded(): boolean;
  /** Waits (at most `timeoutMs`) for an event matching `match`; resolves it or undefined. */
  waitFor(match: (e: any) => boolean, timeoutMs: number): Promise<any>;
  close(): void;
}

export function openWatch(server: TestServer, path: string): WatchStream {
  const url = new URL(server.url);
  const events: any[] = [];
  let status = 0;
  let done = false;
  let buf = '';
  const listeners = new Set<() => void>();
  const notify = (): void => listeners.forEach((l) => l());
  let req: ReturnType<typeof https.request>;
  const ended = new Promise<string>((resolve) => {
    const finish = (how: string): void => {
      if (done) return;
      done = true;
      resolve(how);
      notify();
    };
    req = https.request({ host: url.hostname, port: url.port, path, ca: server.caCertPem, agent: false, headers: { Authorization: `Bearer ${server.token}` } }, (res) => {
      status = res.statusCode ?? 0;
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line));
        }
        notify();
      });
      res.on('end', () => finish('end'));
      res.on('aborted', () => finish('aborted'));
      res.on('error', (err) => finish(`error: ${err.message}`));
    });
    req.on('error', (err) => finish(`error: ${err.message}`));
    req.end();
  });
  return {
    status: () => status,
    events,
    ended,
    isEnded: () => done,
    waitFor(match, timeoutMs) {
      return new Promise((resolve) => {
        const check = (): void => {
          const hit = events.find(match);
          if (hit || done) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          resolve(events.find(match));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () => req.destroy(),
  };
}
