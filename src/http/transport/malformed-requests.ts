// Malformed HTTP/1.1 never reaches the request path: Node's parser fails it and hands the socket
// to the server's 'clientError' listener (a failed TLS handshake is closed before it gets there:
// connection-guard.ts). It is answered as a Status too, and the connection dropped: a request
// head past the limit is a 431, as Go answers it, anything else a 400. Requests before it on the
// connection (pipelined in the same packet) are answered first, in order, as Go reads the next
// request only once the previous response is written (http1-connection.ts).

import type { Server, Socket } from 'node:net';
import { badRequest, requestHeaderFieldsTooLarge } from '../../apimachinery/status-error.js';
import type { ConnectionGuard } from './connection-guard.js';

export function answerMalformedRequests(server: Server, guard: ConnectionGuard): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = (tooLarge ? requestHeaderFieldsTooLarge() : badRequest('malformed HTTP request')).status;
    const body = JSON.stringify(status);
    guard.afterResponses(socket, () => {
      if (socket.writable) socket.end(`HTTP/1.1 ${status.code} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      else socket.destroy();
    });
  });
}
