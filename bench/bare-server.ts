// Baselines: a bare node:https server answering every request with a fixed JSON body of the
// given size (for the GET benchmark), except /stream, which it answers with headers and then
// holds open, as a watch with nothing to say (the floor under an HTTP/1.1 watch's memory). Run
// as a child process; prints its port on stdout.

import https from 'node:https';
import { readFileSync } from 'node:fs';

const [certFile, keyFile, sizeArg] = process.argv.slice(2);
if (!certFile || !keyFile || !sizeArg) {
  process.stderr.write('usage: bare-server <cert.pem> <key.pem> <bodyBytes>\n');
  process.exit(2);
}
const body = Buffer.from(JSON.stringify({ kind: 'Padding', data: 'x'.repeat(Math.max(0, Number(sizeArg) - 30)) }));
const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  if (req.url === '/stream') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
