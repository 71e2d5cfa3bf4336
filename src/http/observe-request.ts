// Reports one request to a RequestObserver: in-flight (or long-running, for watches) while it
// runs, then its labels, code, duration and response size once the response is finished or the
// connection is gone. Called once per request by the request path (the metrics filter).

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestInfo } from '../apimachinery/request-context.js';
import { isLongRunning, requestKind, requestLabels, type RequestObserver } from '../apimachinery/request-observer.js';

export function observeRequest(observer: RequestObserver, req: FastifyRequest, reply: FastifyReply, info: RequestInfo, query: URLSearchParams): void {
  const start = process.hrtime.bigint();
  const contentType = req.headers['content-type'];
  const labels = requestLabels(info, req.method, query, typeof contentType === 'string' ? contentType : undefined);
  const longRunning = isLongRunning(info);
  const kind = requestKind(info);
  if (longRunning) observer.longRunning(labels, 1);
  else observer.inflight(kind, 1);
  reply.raw.once('close', () => {
    if (longRunning) observer.longRunning(labels, -1);
    else observer.inflight(kind, -1);
    // Fastify keeps the headers it computed (Content-Length for a Buffer body) on the reply.
    const length = Number(reply.getHeader('content-length') ?? reply.raw.getHeader('content-length'));
    observer.observe({
      ...labels,
      code: reply.raw.statusCode,
      durationSeconds: Number(process.hrtime.bigint() - start) / 1e9,
      responseBytes: Number.isFinite(length) ? length : 0,
    });
  });
}
