// The two objects every layer of the request path sees: the request as it arrived and the reply
// being made, one of each per request, made by the server (server.ts) over Node's own request
// and response. They carry only what the request path uses: the raw objects (watches and paced
// bodies write to the response directly), the body read into one Buffer (request-body.ts),
// and headers gathered on the reply and written in one writeHead when it is sent.
//
// Node's HTTP/2 compatibility request and response share the HTTP/1.1 API, so both are typed
// here as the HTTP/1.1 ones (every use below and above works on either).

import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class HttpRequest {
  readonly method: string;
  readonly url: string;
  /** Node's header object itself (authentication deletes the credential from it). */
  readonly headers: IncomingHttpHeaders;
  /** The body, for a method that has one (request-body.ts); undefined for GET, HEAD and the like. */
  body: Buffer | undefined = undefined;

  constructor(readonly raw: IncomingMessage) {
    this.method = raw.method ?? 'GET';
    this.url = raw.url ?? '/';
    this.headers = raw.headers;
  }

  /** The connection's socket (HTTP/2: Node's proxy for the session's socket). */
  get socket(): Socket {
    return this.raw.socket;
  }

  /** The client's address, as the socket knows it (no proxy headers are trusted). */
  get ip(): string | undefined {
    return this.raw.socket?.remoteAddress;
  }
}

/** Sees every body a reply sends (the audit log's response body, response-writer.ts). */
export type SendObserver = (reply: HttpReply, body: Buffer) => void;

export class HttpReply {
  /** Headers set so far, by lower-case name; written with the status line when the reply is sent. */
  private readonly headers: OutgoingHttpHeaders = {};
  private hijacked = false;

  constructor(
    readonly raw: ServerResponse,
    readonly request: HttpRequest,
    /** performance.now() when the request arrived. */
    readonly receivedAt: number,
    private readonly onSend?: SendObserver,
  ) {}

  /** Milliseconds since the request arrived. */
  get elapsedTime(): number {
    return performance.now() - this.receivedAt;
  }

  /** Answered: sent, or taken over by its handler (hijack). */
  get sent(): boolean {
    return this.hijacked || this.raw.writableEnded;
  }

  /** The handler writes to `raw` itself from now on (a watch, a paced body); send() does nothing. */
  hijack(): this {
    this.hijacked = true;
    return this;
  }

  code(statusCode: number): this {
    this.raw.statusCode = statusCode;
    return this;
  }

  header(name: string, value: OutgoingHttpHeader): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    const key = name.toLowerCase();
    const value = this.headers[key];
    return value === undefined && this.raw.hasHeader(key) ? (this.raw.getHeader(key) as OutgoingHttpHeader) : value;
  }

  /** The response's own headers, then the reply's (which win). */
  getHeaders(): OutgoingHttpHeaders {
    return { ...this.raw.getHeaders(), ...this.headers };
  }

  removeHeader(name: string): this {
    delete this.headers[name.toLowerCase()];
    return this;
  }

  /**
   * Writes the status, the headers and the body, once (a reply already sent or hijacked is left
   * alone: a request the timeout answered may still finish its work). Without a body the answer
   * has Content-Length: 0 where HTTP allows one; a body's Content-Length is its size (a HEAD
   * keeps one its handler set, and Node writes no body for it).
   */
  send(payload?: Buffer): this {
    if (this.sent) return this;
    const res = this.raw;
    const h = this.headers;
    const status = res.statusCode;
    if (payload === undefined) {
      if (status >= 200 && status !== 204 && status !== 304 && this.request.method !== 'HEAD') h['content-length'] = '0';
      res.writeHead(status, h);
      res.end();
      return this;
    }
    if (h['content-type'] === undefined) h['content-type'] = 'application/octet-stream';
    this.onSend?.(this, payload);
    if (status < 200 || status === 204) {
      // No body may follow these, nor headers that describe one.
      delete h['content-type'];
      delete h['content-length'];
      res.writeHead(status, h);
      res.end();
      return this;
    }
    const length = h['content-length'];
    if (length === undefined || (this.request.method !== 'HEAD' && Number(length) !== payload.length)) h['content-length'] = String(payload.length);
    res.writeHead(status, h);
    res.end(payload);
    return this;
  }
}
