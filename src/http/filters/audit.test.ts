import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unauthorized } from '../../apimachinery/status-error.js';
import { METADATA_FOR_ALL } from '../../auth/audit/audit-policy.js';
import { AuditLog } from './audit-log.js';
import { auditFilter, auditInit } from './audit.js';
import { compose, filter } from './filter.js';
import { fakeExchange } from './test-state.js';

async function auditedEvents(run: (log: AuditLog) => Promise<void>): Promise<Record<string, any>[]> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-filter-'));
  try {
    const log = new AuditLog(join(dir, 'audit.log'), METADATA_FOR_ALL);
    await run(log);
    await log.close();
    return readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a request is audited at RequestReceived with its user, and at ResponseComplete when the response ends', async () => {
  const events = await auditedEvents(async (log) => {
    const x = fakeExchange({ user: { username: 'alice', groups: [] } });
    await compose([auditInit(log), auditFilter], async () => {})(x.state);
    x.state.reply.raw.statusCode = 201;
    x.state.reply.raw.emit('finish');
  });
  assert.deepEqual(events.map((e) => [e.stage, e.user.username, e.responseStatus?.code]), [
    ['RequestReceived', 'alice', undefined],
    ['ResponseComplete', 'alice', 201],
  ]);
});

test('a request refused before its identity is settled is still audited', async () => {
  const events = await auditedEvents(async (log) => {
    const x = fakeExchange();
    const refuse = filter({
      enter: () => {
        throw unauthorized();
      },
    });
    await assert.rejects(compose([auditInit(log), refuse, auditFilter], async () => assert.fail('must not run'))(x.state));
  });
  assert.deepEqual(events.map((e) => [e.stage, e.user.username]), [['RequestReceived', '']]);
});

test('without an audit log the filters do nothing', async () => {
  const x = fakeExchange();
  await compose([auditInit(undefined), auditFilter], async () => {})(x.state);
  assert.equal(x.state.audit, undefined);
});
