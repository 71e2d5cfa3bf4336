// A minimal mutating admission webhook: adds the label `owner: platform-team` to every object
// it is sent, unless it already has an owner. Answers AdmissionReview v1 with a JSONPatch.
//
//   TLS_CERT=serving.crt TLS_KEY=serving.key PORT=8443 node label-webhook.mjs
//
// It prints the URL it listens on (PORT=0 picks a free port). A request that is not an
// AdmissionReview gets 400; the webhook goes on serving.
//
// The certificate must be valid for the host in the webhook configuration's URL, and its CA
// (base64) goes into clientConfig.caBundle (see label-webhook.yaml).
import { readFileSync } from 'node:fs';
import https from 'node:https';

const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) }, (req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    let review;
    try {
      review = JSON.parse(body);
      if (typeof review?.request?.uid !== 'string') throw new Error('no request.uid');
    } catch (err) {
      // Not an AdmissionReview (a probe, a stray client): refused, and the webhook keeps serving.
      res.writeHead(400, { 'content-type': 'text/plain' });
      return void res.end(`expected an AdmissionReview: ${err.message}\n`);
    }
    const labels = review.request.object?.metadata?.labels;
    const response = { uid: review.request.uid, allowed: true };
    if (review.request.object && !labels?.owner) {
      // A JSONPatch "add" needs the parent to exist: add the whole map when there is none.
      const patch = labels ? [{ op: 'add', path: '/metadata/labels/owner', value: 'platform-team' }] : [{ op: 'add', path: '/metadata/labels', value: { owner: 'platform-team' } }];
      response.patchType = 'JSONPatch';
      response.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
  });
});
server.listen(Number(process.env.PORT ?? 8443), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`label-webhook listening on https://${address}:${port}/mutate`);
});
