// Versions this server reports: its own, and the Kubernetes API level of its kinds (docs/api-compatibility.md, decision 2).

export const SERVER_VERSION = '0.1.0';
export const KUBERNETES_VERSION = { major: '1', minor: '33', gitVersion: `v1.33.0+platform-apiserver.${SERVER_VERSION}` };
