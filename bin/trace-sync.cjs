#!/usr/bin/env node
// Runs the compiled CLI when `npm run build` has produced dist/, otherwise the TypeScript sources through tsx.
const path = require('node:path');
const fs = require('node:fs');
const compiled = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
if (fs.existsSync(compiled)) {
  require(compiled);
} else {
  require('tsx/cjs');
  require(path.join(__dirname, '..', 'cli', 'main.ts'));
}
