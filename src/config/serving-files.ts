// Re-reads the serving certificate and key (--tls-cert-file, --tls-private-key-file) and the
// client CA bundle (--client-ca-file) when their files change, as kube-apiserver's dynamic
// certificate controllers do, so that cert-manager (or a kubelet's secret volume) can rotate them
// without a restart: new connections get the new material, open connections and their watches
// keep theirs. Changes are noticed by file-follow.ts (a watch on the directories, where a secret
// volume swaps its `..data` symlink, and a bounded periodic check) and judged by comparing
// contents. A broken new file (a certificate without its key, a half-written PEM) changes
// nothing: the last good material keeps serving, the error is logged once, and the named
// readiness check reports it until a good file arrives.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from '../apimachinery/request-context.js';
import type { ServingMaterial } from '../http/server.js';
import { followFiles } from './file-follow.js';

export interface ServingFiles {
  /** With keyFile: the serving pair to follow (absent: a generated certificate, never reloaded). */
  certFile?: string;
  keyFile?: string;
  clientCAFile?: string;
}

export interface ServingFilesWatch {
  /** Why the serving certificate files are being ignored ('' when they are good). */
  servingCertProblem(): string;
  /** Why the client CA file is being ignored ('' when it is good). */
  clientCAProblem(): string;
  close(): void;
}

/** A serving pair that matches, or throws saying what is wrong. */
export function checkPair(certPem: string, keyPem: string): void {
  const cert = new X509Certificate(certPem);
  const key = createPrivateKey(keyPem);
  if (!cert.checkPrivateKey(key)) throw new Error('the private key does not match the certificate');
}

/**
 * A CA bundle of whole certificates (at least one), or throws. Every block is parsed: Node's TLS
 * would silently skip a half-written one, and a bundle cut short is a broken file, not a smaller
 * bundle.
 */
export function checkCABundle(pem: string): void {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  // Other PEM blocks are skipped (as Go's AppendCertsFromPEM skips them); a certificate cut short is not.
  if ((pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length !== blocks.length) throw new Error('the bundle holds an incomplete certificate');
  if (blocks.length === 0) throw new Error('no certificate in the bundle');
  for (const b of blocks) new X509Certificate(b);
}

export function watchServingFiles(o: {
  files: ServingFiles;
  initial: ServingMaterial;
  /** Installs new material (new connections use it). */
  apply: (m: ServingMaterial) => void;
  logger: Logger;
  pollMs?: number;
}): ServingFilesWatch {
  const { certFile, keyFile, clientCAFile } = o.files;
  let current = { ...o.initial };
  let certProblem = '';
  let caProblem = '';
  const read = (path: string): string | Error => {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      return err as Error;
    }
  };

  const check = (): void => {
    let next = current;
    if (certFile && keyFile) {
      const cert = read(certFile);
      const key = read(keyFile);
      if (cert instanceof Error || key instanceof Error) {
        certProblem = report(certProblem, `serving certificate ${certFile}: ${((cert instanceof Error ? cert : key) as Error).message}; keeping the last good one`);
      } else if (cert !== current.certPem || key !== current.keyPem) {
        try {
          checkPair(cert, key);
          next = { ...next, certPem: cert, keyPem: key };
        } catch (err) {
          certProblem = report(certProblem, `serving certificate ${certFile} with key ${keyFile} is not usable, keeping the last good one: ${(err as Error).message}`);
        }
      } else certProblem = resolved(certProblem, 'serving certificate');
    }
    if (clientCAFile) {
      const ca = read(clientCAFile);
      if (ca instanceof Error) caProblem = report(caProblem, `client CA bundle ${clientCAFile}: ${ca.message}; keeping the last good one`);
      else if (ca !== current.clientCAPem) {
        try {
          checkCABundle(ca);
          next = { ...next, clientCAPem: ca };
        } catch (err) {
          caProblem = report(caProblem, `client CA bundle ${clientCAFile} is not usable, keeping the last good one: ${(err as Error).message}`);
        }
      } else caProblem = resolved(caProblem, 'client CA bundle');
    }
    if (next === current) return;
    try {
      o.apply(next);
    } catch (err) {
      // Node refused the whole (each part was checked alone): the last good material stays.
      certProblem = report(certProblem, `the new serving material was refused, keeping the last good one: ${(err as Error).message}`);
      return;
    }
    if (next.certPem !== current.certPem) {
      certProblem = '';
      o.logger.info({ certFile, keyFile }, 'loaded a new serving certificate and key');
    }
    if (next.clientCAPem !== current.clientCAPem) {
      caProblem = '';
      o.logger.info({ clientCAFile }, 'loaded a new client CA bundle');
    }
    current = next;
  };
  const report = (previous: string, problem: string): string => {
    if (problem !== previous) o.logger.error({}, problem);
    return problem;
  };
  const resolved = (previous: string, what: string): string => {
    if (previous) o.logger.info({}, `the ${what} files are good again (unchanged from the last good ones)`);
    return '';
  };

  const followed = followFiles({ paths: [certFile, keyFile, clientCAFile].filter((p): p is string => Boolean(p)), onChange: check, pollMs: o.pollMs });
  return {
    servingCertProblem: () => certProblem,
    clientCAProblem: () => caProblem,
    close() {
      followed.close();
    },
  };
}
