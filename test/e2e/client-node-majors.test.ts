// The client-node suite (client-node-suite.ts) on both majors: 1.x as `@kubernetes/client-node`,
// 2.x installed beside it as `@kubernetes/client-node-2` (an npm alias). 2.x depends on undici 8,
// which needs Node 22 (it binds zlib's zstd at load); package.json overrides undici to 7 for the
// alias only (undici 7 supports Node >= 20.18.1), which is what 2.x works with on Node 20.

import * as k8s1 from '@kubernetes/client-node';
import * as k8s2 from '@kubernetes/client-node-2';
import { describeClientNodeSuite } from './client-node-suite.js';

describeClientNodeSuite('1.x', k8s1);
describeClientNodeSuite('2.x', k8s2 as unknown as typeof k8s1);
