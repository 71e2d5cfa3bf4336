// Which bundles a trust-anchors request selects, with the kubelet's rules for a
// clusterTrustBundle projection:
// - by name: that one bundle; missing is an error, or empty output when optional;
// - by signer: every bundle whose spec.signerName equals the signer exactly and whose labels
//   match the selector. An unset selector matches nothing and an empty one matches every bundle
//   of the signer (the projection's labelSelector rules). No match is an error, or empty output
//   when optional. A selector longer than 100 KiB is refused.

export const MAX_LABEL_SELECTOR_LENGTH = 100 * 1024;

export type Selection = { kind: 'name'; name: string } | { kind: 'signer'; signerName: string; labelSelector?: string };

/** The server-side list filters for a selection; undefined when it can match nothing. */
export function listFilters(sel: Selection): { fieldSelector: string; labelSelector?: string } | undefined {
  if (sel.kind === 'name') return { fieldSelector: `metadata.name=${sel.name}` };
  if (sel.labelSelector === undefined) return undefined;
  if (sel.labelSelector.length > MAX_LABEL_SELECTOR_LENGTH) {
    throw new Error(`label selector length (${sel.labelSelector.length}) is larger than ${MAX_LABEL_SELECTOR_LENGTH}`);
  }
  return { fieldSelector: `spec.signerName=${sel.signerName}`, labelSelector: sel.labelSelector };
}

/** The error for an empty selection, or undefined when empty output is the answer (optional). */
export function emptySelectionError(sel: Selection, optional: boolean): string | undefined {
  if (optional) return undefined;
  if (sel.kind === 'name') return `while getting ClusterTrustBundle: clustertrustbundles.certificates.platform.io "${sel.name}" not found`;
  const hint = sel.labelSelector === undefined ? " (no --selector: as in a projection, an unset selector matches nothing; --selector '' matches every bundle of the signer)" : '';
  return `combination of signerName and labelSelector matched zero ClusterTrustBundles${hint}`;
}
