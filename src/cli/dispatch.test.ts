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
  assert.equal(await runCommand(['help'], commands), undefined, '`help` alone: the server prints its --help');
  assert.equal(await runCommand(['help', 'one'], commands), 3, '`help <command>`: the command with --help');
  assert.deepEqual(seen, [['two', 'save', 'f.db', '--data-dir', 'd', '--help', '-o', 'json'], ['one'], ['one', '--help']]);
  assert.deepEqual(COMMANDS.map((c) => c.name), ['trust-anchors', 'snapshot', 'migrate', 'defrag', 'version']);
});

test('a word where a command goes that names none is a usage error (2), with the nearest command when one is near', async () => {
  const commands: CliCommand[] = [{ name: 'snapshot', summary: 's', run: async () => 0 }, { name: 'version', summary: 'v', run: async () => 0 }];
  const errors: string[] = [];
  assert.equal(await runCommand(['snapshots', 'ls'], commands, (t) => errors.push(t)), 2);
  assert.equal(await runCommand(['verison'], commands, (t) => errors.push(t)), 2);
  assert.equal(await runCommand(['zzz'], commands, (t) => errors.push(t)), 2);
  assert.deepEqual(errors, [
    "platform-apiserver: unknown command 'snapshots' (Did you mean snapshot?)\n",
    "platform-apiserver: unknown command 'verison' (Did you mean version?)\n",
    "platform-apiserver: unknown command 'zzz' (the commands are snapshot, version; the server takes flags only, see --help)\n",
  ]);
});
