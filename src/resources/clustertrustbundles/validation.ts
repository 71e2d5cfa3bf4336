// ClusterTrustBundle validation in upstream order (metadata, spec.signerName, spec.trustBundle)
// with upstream's paths, reasons and messages (upstream's ValidateClusterTrustBundle and
// ValidateClusterTrustBundleUpdate; docs/api-compatibility.md). Certificates are judged by
// go-x509/, which accepts exactly what Go 1.24's x509.ParseCertificate accepts.

import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain, type NameValidator } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import { pemDecodeAll } from './pem-decode.js';
import { MAX_TRUST_BUNDLE_BYTES, type ClusterTrustBundle } from './types.js';
import { parseGoCertificate } from './go-x509/certificate.js';

const signerPath = FieldPath.root('spec').child('signerName');
const bundlePath = FieldPath.root('spec').child('trustBundle');
const OMITTED = '<value omitted>';
const MAX_SIGNER_NAME = 571;

/** The name rule tied to the signer: `<signer with / as :>:<suffix>`, or no `:` without a signer. */
export function clusterTrustBundleNameValidator(signerName: string): NameValidator {
  return (name, prefix) => {
    if (!signerName) {
      if (name.includes(':')) return ['ClusterTrustBundle without signer name must not have ":" in its name'];
      return nameIsDNSSubdomain(name, prefix);
    }
    const required = `${signerName.replace(/\//g, ':')}:`;
    if (!name.startsWith(required)) return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${required}`];
    return nameIsDNSSubdomain(name.slice(required.length), prefix);
  };
}

/** Upstream ValidateSignerName: `<domain>/<path>` with DNS rules on both parts. */
export function validateSignerName(signerName: string): FieldError[] {
  const parts = signerName.split('/');
  if (parts.length !== 2) {
    return [fieldErrors.invalid(signerPath, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, path] = parts as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(fieldErrors.tooLong(signerPath, domain, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length) {
      for (const m of msgs) errs.push(fieldErrors.invalid(signerPath, domain, `validating label "${label}": ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(signerPath, domain, 'should be a domain with at least two segments separated by dots'));
  for (const piece of path.split('.')) {
    const msgs = isDNS1123Subdomain(piece);
    if (msgs.length) {
      for (const m of msgs) errs.push(fieldErrors.invalid(signerPath, path, `validating label "${piece}": ${m}`));
      break;
    }
  }
  if (signerName.length > MAX_SIGNER_NAME) errs.push(fieldErrors.tooLong(signerPath, signerName, MAX_SIGNER_NAME));
  return errs;
}

/** Every PEM block must be a clean CA certificate; no duplicates by DER bytes; at least one. */
export function validateTrustBundle(bundle: string): FieldError[] {
  if (Buffer.byteLength(bundle, 'utf8') > MAX_TRUST_BUNDLE_BYTES) return [fieldErrors.tooLong(bundlePath, OMITTED, MAX_TRUST_BUNDLE_BYTES)];
  const errs: FieldError[] = [];
  const seen = new Map<string, number[]>();
  pemDecodeAll(bundle).forEach((block, i) => {
    let problem: string | undefined;
    if (block.type !== 'CERTIFICATE') problem = `entry ${i} has bad block type: ${block.type}`;
    else if (Object.keys(block.headers).length > 0) problem = `entry ${i} has PEM block headers`;
    else {
      const cert = parseGoCertificate(block.bytes);
      if (!cert.ok) problem = `entry ${i} does not parse as X.509`;
      else if (!cert.isCA) problem = `entry ${i} does not have the CA bit set`;
    }
    if (problem) {
      errs.push(fieldErrors.invalid(bundlePath, OMITTED, problem));
      return;
    }
    const key = block.bytes.toString('latin1');
    const indices = seen.get(key);
    if (indices) indices.push(i);
    else seen.set(key, [i]);
  });
  if (errs.length) return errs;
  if (seen.size === 0) return [fieldErrors.invalid(bundlePath, OMITTED, 'at least one trust anchor must be provided')];
  for (const indices of seen.values()) {
    if (indices.length > 1) errs.push(fieldErrors.invalid(bundlePath, OMITTED, `duplicate trust anchor (indices [${indices.join(' ')}])`));
  }
  return errs;
}

export function validateClusterTrustBundle(obj: ClusterTrustBundle, opts: { suppressBundleParsing?: boolean } = {}): FieldError[] {
  const signerName = obj.spec?.signerName ?? '';
  const errs = validateObjectMeta(obj.metadata, false, clusterTrustBundleNameValidator(signerName), FieldPath.root('metadata'));
  if (signerName) errs.push(...validateSignerName(signerName));
  if (!opts.suppressBundleParsing) errs.push(...validateTrustBundle(obj.spec?.trustBundle ?? ''));
  return errs;
}

export function validateClusterTrustBundleUpdate(next: ClusterTrustBundle, old: ClusterTrustBundle): FieldError[] {
  // Stored bundles that no longer validate can still have their metadata edited.
  const suppressBundleParsing = next.spec?.trustBundle === old.spec?.trustBundle;
  const errs = validateClusterTrustBundle(next, { suppressBundleParsing });
  errs.push(...validateObjectMetaUpdate(next.metadata, old.metadata, FieldPath.root('metadata')));
  const newSigner = next.spec?.signerName ?? '';
  if (newSigner !== (old.spec?.signerName ?? '')) errs.push(fieldErrors.invalid(signerPath, newSigner, 'field is immutable'));
  return errs;
}
