// Every page's shell blocks, run as a reader runs them (docs/docs-tests.md): one shell session
// per page in a fresh temp dir, against the built server on a free port, real kubectl from PATH,
// and a real etcd cluster where the page starts one (`npm run cluster`). A command that fails,
// or prints other than the page shows, fails its page. Pages still pending (test/docs/pages.ts)
// are reported as TODO.

import { after, before, describe, test } from 'node:test';
import { readBlocks, SHELL_LANGS } from './doc-blocks.js';
import { coveredPages, PENDING, repo } from './pages.js';
import { runPage } from './run-page.js';
import { ShellSession } from './shell-session.js';
import { builtCopy, type BuiltCopy } from '../support/built-copy.js';
import { requireTool } from '../e2e/require-tool.js';
import { requireEtcd } from '../support/etcd-process.js';

const runnable = coveredPages()
  .map((page) => ({ page, blocks: readBlocks(repo, page) }))
  .filter(({ blocks }) => blocks.some((b) => SHELL_LANGS.has(b.lang) && b.marker?.kind !== 'not-run'));

describe('the docs run as written', () => {
  let built: BuiltCopy | undefined;
  const kubectl = requireTool('kubectl', 'the docs tests run the pages’ kubectl commands');

  before(async () => {
    if (kubectl) built = await builtCopy(repo);
  });
  after(() => built?.remove());

  for (const { page, blocks } of runnable) {
    const needsEtcd = blocks.some((b) => b.marker?.kind !== 'not-run' && /npm run cluster/.test(b.text));
    test(page, async (t) => {
      if (!kubectl || (needsEtcd && !requireEtcd(`${page} runs npm run cluster`))) return t.skip('a tool is missing (SKIPPED above)');
      const started = Date.now();
      const session = ShellSession.start(repo, built!.main, page);
      try {
        const { commands } = await runPage(session, blocks);
        t.diagnostic(`${commands} commands in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } finally {
        await session.close();
      }
    });
  }

  for (const [page, why] of PENDING) test(page, { todo: `pending: ${why}; its blocks are not marked or run yet` }, () => undefined);
});
