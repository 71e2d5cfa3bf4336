import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS, runCommand, type CliCommand } from './dispatch.js';

test('a command gets every argument after its name, as given; server flags run no command', async () => {
  const seen: string[][] = [];
  const commands: CliCommand[] = [
    { name: 'one', summary: 'first', run: async (argv) => (seen.push(['one', ...argv]), 3) },
    { name: 'two', summary: 'second', run: async (argv) => (seen.push(['two', ...argv]), 0) },
  ];
  assert.equal(await runCommand(['two', 'save', 'f.db', '--data-dir', 'd', '--help', '-o', 'json'], commands), 0);
  assert.equal(await runCommand(['one'], commands), 3);
  assert.equal(await runCommand(['--data-dir', 'x', 'one'], commands), undefined, 'flags first: the server');
  assert.equal(await runCommand([], commands), undefined);
  assert.deepEqual(seen, [['two', 'save', 'f.db', '--data-dir', 'd', '--help', '-o', 'json'], ['one']]);
  assert.deepEqual(COMMANDS.map((c) => c.name), ['trust-anchors', 'snapshot', 'migrate', 'defrag']);
});
