import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The project root: the nearest folder above this module holding package.json. Works from the
 * TypeScript sources (worker/) and from the build (dist/worker/), whose dist/ has no package.json.
 */
export function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(__dirname, '..');
    dir = parent;
  }
}

/** Project-local cache for tools the project installs itself (Temporal CLI, its virtualenv). */
export function cacheDir(): string {
  return path.join(repoRoot(), '.cache');
}
