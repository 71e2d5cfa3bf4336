// Baselines: a bare Node server answering every request with a fixed JSON body of the given size
// (the GET and LIST benchmarks), except:
// - /stream: headers, then held open, as a watch with nothing to say (the floor under an
//   HTTP/1.1 watch's memory);
// - /watch and /fanout/<n>: the floor under watch fan-out. A /watch response is held open; a
//   request to /fanout/<n> writes one line of the given size to every held response (a watch
//   event whose labels carry `"watch-bench-seq":"<n>"`, as the benchmark's writes set them), then
//   answers 200: what a server does for a write with no storage, filtering or encoding.
// Protocols `h1` (default): node:https; `both`: node:http2's secure server with HTTP/1.1
// allowed, as ours is built, so wrk (HTTP/1.1) and h2load (HTTP/2) measure the same baseline.
// Run as a child process; prints its port on stdout.

import https from 'node:https';
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';

const [certFile, keyFile, sizeArg, protocols = 'h1'] = process.argv.slice(2);
if (!certFile || !keyFile || !sizeArg || (protocols !== 'h1' && protocols !== 'both')) {
  process.stderr.write('usage: bare-server <cert.pem> <key.pem> <bodyBytes> [h1|both]\n');
  process.exit(2);
}
const body = Buffer.from(JSON.stringify({ kind: 'Padding', data: 'x'.repeat(Math.max(0, Number(sizeArg) - 30)) }));

type Req = IncomingMessage | http2.Http2ServerRequest;
type Res = ServerResponse | http2.Http2ServerResponse;

const watches = new Set<ServerResponse>();
/** One event line of `sizeArg` bytes (padding inside the object) for write number `seq`. */
function eventLine(seq: string): Buffer {
  const bare = `{"type":"MODIFIED","object":{"metadata":{"labels":{"watch-bench-seq":"${seq}"}},"pad":""}}\n`;
  return Buffer.from(bare.replace('"pad":""', `"pad":"${'x'.repeat(Math.max(0, Number(sizeArg) - bare.length))}"`));
}

function answer(req: Req, res: Res): void {
  if (req.url === '/watch') {
    const r = res as ServerResponse;
    r.writeHead(200, { 'Content-Type': 'application/json', ...(req.httpVersionMajor === 1 ? { 'Transfer-Encoding': 'chunked' } : {}) });
    r.flushHeaders();
    watches.add(r);
    r.once('close', () => watches.delete(r));
    return;
  }
  if (req.url?.startsWith('/fanout/')) {
    const line = eventLine(req.url.slice('/fanout/'.length));
    req.resume();
    req.on('end', () => {
      // The write is answered, then its event goes out: as a server answers once the write has committed.
      (res as ServerResponse).writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2 });
      res.end('{}');
      for (const w of watches) w.write(line);
    });
    return;
  }
  if (req.url === '/stream') {
    (res as ServerResponse).writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    (res as ServerResponse).flushHeaders();
    return;
  }
  req.resume();
  req.on('end', () => {
    (res as ServerResponse).writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
}

const tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
const server = protocols === 'both' ? http2.createSecureServer({ ...tls, allowHTTP1: true }, answer) : https.createServer(tls, answer);
if (server instanceof https.Server) server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
// http2's close waits for idle sessions; the load generators are gone by then, but do not hang.
process.on('SIGTERM', () => setTimeout(() => process.exit(0), 1000).unref());
