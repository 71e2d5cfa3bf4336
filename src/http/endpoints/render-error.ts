// The one place a failed request's error becomes its answer: a StatusError is sent as its
// Status (the transport's refusals of a body too large or short are StatusErrors too); a client
// that went away gets its 400 if it can still read it (and nothing is logged but at debug level);
// any other error is logged once, with its stack, and answered 500 without it.

import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import type { Logger } from '../../apimachinery/request-context.js';
import { badRequest, internal, isStatusError, type Status, type StatusError } from '../../apimachinery/status-error.js';
import { isPretty, parseGoQuery } from './query-values.js';
import { writeStatus } from './response-writer.js';
import { responseClosed } from '../transport/response-closed.js';

/** What Node fails a request's read with when its client goes away. */
interface ClientError {
  code?: string;
  message?: string;
}

/** Any error to a Status; unexpected ones are logged once, with their stack, and never sent. */
export function toStatus(err: unknown, logger: Logger): Status {
  if (isStatusError(err)) return (err as StatusError).status;
  const fe = err as ClientError;
  // The client went away mid-request: nothing to answer and nothing wrong with the server.
  if (fe?.code === 'ECONNRESET' || fe?.code === 'ECONNABORTED' || fe?.message === 'aborted') {
    logger.debug({ code: fe.code }, 'client aborted the request');
    return badRequest('the client aborted the request').status;
  }
  logger.error({ err }, 'internal error');
  return internal('an unexpected error occurred; see the server log').status;
}

/**
 * Answers a failed request with its Status (once: a request already answered is left alone, and
 * one whose client has gone has no one to answer: Node refuses a write to a reset HTTP/2 stream).
 */
export function renderError(req: HttpRequest, reply: HttpReply, err: unknown, logger: Logger): void {
  const status = toStatus(err, logger);
  // Already answered (a request that timed out, then failed), or its client gone (a reset
  // upload): nothing more to say.
  if (reply.sent || responseClosed(reply.raw)) return;
  // The rest of a refused body may still be in flight: do not reuse this connection. HTTP/2
  // has no such header (Node warns about it): the stream alone ends.
  if (req.raw.httpVersionMajor !== 1) reply.removeHeader('connection');
  else if (status.code === 413) reply.header('Connection', 'close');
  // Errors are indented as kube indents every negotiated answer: `?pretty`, or a person's user agent.
  const q = req.url.indexOf('?');
  writeStatus(reply, status, { pretty: isPretty(parseGoQuery(q < 0 ? '' : req.url.slice(q + 1)), req.headers['user-agent']) });
}
