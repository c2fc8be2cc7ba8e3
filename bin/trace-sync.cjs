#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build` or once by `npm start`/`npm test`): it starts in a
// fraction of a second. When dist/ is missing, or older than a source file (a checkout or an edit since the
// build), it runs the TypeScript sources through tsx instead, which is correct but starts in seconds.
const path = require('node:path');
const fs = require('node:fs');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const SOURCE_DIRS = ['cli', 'worker', 'workflows', 'activities', 'connectors', 'sandbox'];

/** Whether any .ts file under the source folders is newer than `since` (ms). Sources absent (an image): false. */
function newerSource(since) {
  const pending = SOURCE_DIRS.map((dir) => path.join(root, dir));
  while (pending.length > 0) {
    const dir = pending.pop();
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.name.endsWith('.ts') && fs.statSync(full).mtimeMs > since) return true;
    }
  }
  return false;
}

function compiledIsCurrent() {
  let built;
  try {
    built = fs.statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  return !newerSource(built);
}

let cli;
if (compiledIsCurrent()) {
  cli = require(path.join(root, 'dist', 'cli', 'main.js'));
} else {
  require('tsx/cjs');
  cli = require(path.join(root, 'cli', 'main.ts'));
}
void cli.main(process.argv);
