// docs/flags.md cannot drift from the CLI: it must be exactly what scripts/gen-flags-doc.ts
// generates from the commander definitions, and every flag the --help texts print must be on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { documentedCommands, FLAGS_DOC_PATH, renderFlagsDoc } from '../../scripts/gen-flags-doc.js';

test('docs/flags.md is what npm run docs:flags generates', () => {
  assert.equal(readFileSync(FLAGS_DOC_PATH, 'utf8'), renderFlagsDoc(), 'docs/flags.md is out of date: run npm run docs:flags');
});

test('every --flag of every --help is on docs/flags.md', () => {
  const doc = readFileSync(FLAGS_DOC_PATH, 'utf8');
  const withSubcommands = (c: Command): Command[] => [c, ...c.commands.flatMap(withSubcommands)];
  const helps = documentedCommands().flatMap(withSubcommands).map((c) => c.helpInformation());
  // A family named in a description (`--oidc-*`) is not a flag: a flag's name ends in a letter or digit.
  const flags = new Set(helps.flatMap((h) => [...h.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9](?![\w*-])/g)].map((m) => m[0])));
  assert.ok(flags.size > 30, `found ${flags.size} flags in --help`);
  const missing = [...flags].filter((f) => !doc.includes(`${f} `) && !doc.includes(`${f}\``));
  assert.deepEqual(missing, []);
});
