// The two objects every layer of the request path sees: the request as it arrived and the reply
// being made. Named here once, so that the transport under them can change without touching
// the filters, endpoints and routes.

import type { FastifyReply, FastifyRequest } from 'fastify';

export type HttpRequest = FastifyRequest;
export type HttpReply = FastifyReply;
