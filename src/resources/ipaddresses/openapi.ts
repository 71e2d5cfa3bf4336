// OpenAPI component schemas of networking.platform.io/v1 IPAddress (descriptions in our words).

import { LIST_META, OBJECT_META, typeMetaProperties } from '../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import { GROUP, KIND, VERSION } from './types.js';

const PREFIX = 'io.platform.networking.v1';
export const IP_SCHEMA = `${PREFIX}.IPAddress`;
export const IP_LIST_SCHEMA = `${PREFIX}.IPAddressList`;
const IP_SPEC_SCHEMA = `${PREFIX}.IPAddressSpec`;
const PARENT_REF_SCHEMA = `${PREFIX}.ParentReference`;

const typeMeta = (kind: string): Record<string, Schema> => typeMetaProperties(`${GROUP}/${VERSION}`, kind);
const str = (description: string): Schema => ({ type: 'string', description });

export const ipAddressSchemas: SchemaRegistry = {
  [IP_SCHEMA]: {
    type: 'object',
    description:
      'IPAddress records the allocation of one IP address, named by the address in canonical form (IPv4 without leading zeros, IPv6 as RFC 5952 writes it), to the object that holds it.',
    properties: {
      ...typeMeta(KIND),
      metadata: { allOf: [refTo(OBJECT_META)], description: 'Standard object metadata; the name is the IP address.' },
      spec: { allOf: [refTo(IP_SPEC_SCHEMA)], default: {}, description: 'What the address is allocated to.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: KIND }],
  },
  [IP_SPEC_SCHEMA]: {
    type: 'object',
    description: 'The allocation of an IPAddress.',
    required: ['parentRef'],
    properties: {
      parentRef: { allOf: [refTo(PARENT_REF_SCHEMA)], description: 'The object the address is allocated to. Required and immutable.' },
    },
  },
  [PARENT_REF_SCHEMA]: {
    type: 'object',
    description: 'A reference to the object an address is allocated to.',
    required: ['resource', 'name'],
    properties: {
      group: str('The API group of the referent; empty for the core group.'),
      resource: str('The resource of the referent.'),
      namespace: str('The namespace of the referent, for a namespaced one.'),
      name: str('The name of the referent.'),
    },
  },
  [IP_LIST_SCHEMA]: {
    type: 'object',
    description: 'A collection of IPAddress objects.',
    required: ['items'],
    properties: {
      ...typeMeta(`${KIND}List`),
      items: { type: 'array', description: 'The IPAddresses.', items: { allOf: [refTo(IP_SCHEMA)], default: {} } },
      metadata: { allOf: [refTo(LIST_META)], description: 'Standard list metadata.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: `${KIND}List` }],
  },
};
