// ClusterTrustBundle validation of a 100-certificate bundle beside Node's own X.509 parse of
// the same certificates (what validation cost when it parsed with OpenSSL; the Go-strict DER
// parse of go-x509/ needs no OpenSSL and runs at a fraction of it).

import { X509Certificate } from 'node:crypto';
import { makeCACert } from '../../test/fixtures/certs.js';
import { validateTrustBundle } from '../../src/resources/clustertrustbundles/validation.js';

export async function benchCtbValidation(certificates = 100, rounds = 20): Promise<{ validateMs: number; nodeParseMs: number; ratio: number }> {
  const certs = await Promise.all(Array.from({ length: certificates }, (_, i) => makeCACert({ commonName: `bench-${i}` })));
  const bundle = certs.map((c) => c.pem).join('');
  const ders = certs.map((c) => c.der);
  if (validateTrustBundle(bundle).length) throw new Error('benchmark bundle does not validate');
  const time = (fn: () => void): number => {
    fn(); // warm up
    const started = performance.now();
    for (let i = 0; i < rounds; i++) fn();
    return (performance.now() - started) / rounds;
  };
  const nodeParseMs = time(() => {
    for (const der of ders) new X509Certificate(der);
  });
  const validateMs = time(() => validateTrustBundle(bundle));
  return { validateMs, nodeParseMs, ratio: validateMs / nodeParseMs };
}
