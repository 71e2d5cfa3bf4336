// OpenAPI component schemas of certificates.platform.io/v1beta1 (descriptions in our words).

import { LIST_META, OBJECT_META, typeMetaProperties } from '../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import { GROUP, KIND, VERSION } from './types.js';

const PREFIX = 'io.platform.certificates.v1beta1';
export const CTB_SCHEMA = `${PREFIX}.ClusterTrustBundle`;
export const CTB_LIST_SCHEMA = `${PREFIX}.ClusterTrustBundleList`;
const CTB_SPEC_SCHEMA = `${PREFIX}.ClusterTrustBundleSpec`;

const typeMeta = (kind: string): Record<string, Schema> => typeMetaProperties(`${GROUP}/${VERSION}`, kind);

export const clusterTrustBundleSchemas: SchemaRegistry = {
  [CTB_SCHEMA]: {
    type: 'object',
    description:
      'ClusterTrustBundle is a cluster-scoped container for X.509 trust anchors (root certificates). A bundle may be tied to one signer, and then holds a set of trust anchors for that signer; a signer may have several bundles. Every authenticated user can read bundles.',
    required: ['spec'],
    properties: {
      ...typeMeta(KIND),
      metadata: { allOf: [refTo(OBJECT_META)], description: 'Standard object metadata. With a signer, the name must start with the signer name (slashes as colons) followed by a colon.' },
      spec: { allOf: [refTo(CTB_SPEC_SCHEMA)], description: 'The signer, if any, and the trust anchors.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: KIND }],
  },
  [CTB_SPEC_SCHEMA]: {
    type: 'object',
    description: 'The contents of a ClusterTrustBundle.',
    required: ['trustBundle'],
    properties: {
      signerName: {
        type: 'string',
        description:
          'The name of the signer this bundle belongs to, of the form <domain>/<path>. Creating or updating a bundle with a signer requires the attest verb on that signer. Immutable.',
      },
      trustBundle: {
        type: 'string',
        default: '',
        description:
          'A sequence of PEM CERTIFICATE blocks, each a CA certificate, with no PEM headers and no duplicates. Consumers may reorder and deduplicate blocks and drop data between them. At most 1 MiB.',
      },
    },
  },
  [CTB_LIST_SCHEMA]: {
    type: 'object',
    description: 'A collection of ClusterTrustBundle objects.',
    required: ['items'],
    properties: {
      ...typeMeta(`${KIND}List`),
      items: { type: 'array', description: 'The bundles.', items: { allOf: [refTo(CTB_SCHEMA)], default: {} } },
      metadata: { allOf: [refTo(LIST_META)], description: 'Standard list metadata.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: `${KIND}List` }],
  },
};
