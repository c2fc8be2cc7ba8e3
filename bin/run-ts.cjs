#!/usr/bin/env node
// Runs a TypeScript entry point (bench scripts, tools) through tsx: node bin/run-ts.cjs FILE [args...]
const path = require('node:path');
require('tsx/cjs');
const [, , entry, ...rest] = process.argv;
if (!entry) {
  console.error('usage: node bin/run-ts.cjs FILE.ts [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(entry), ...rest];
require(path.resolve(entry));
