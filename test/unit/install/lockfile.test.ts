import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { z } from 'zod';
import { repoRoot } from '../../../worker/paths';

/**
 * `npm ci` on a fresh clone refuses a lockfile that lacks any platform's optional package ("Missing: ... from lock
 * file"), and warns EBADENGINE when a locked package wants a newer Node than the one `engines` names.
 */
const lockSchema = z.object({
  packages: z.record(
    z.string(),
    z.object({
      version: z.string().optional(),
      optionalDependencies: z.record(z.string(), z.string()).optional(),
      engines: z.union([z.record(z.string(), z.string()), z.array(z.string())]).optional(),
      os: z.array(z.string()).optional(),
    }),
  ),
});
const manifestSchema = z.object({ engines: z.object({ node: z.string() }) });

const lock = lockSchema.parse(JSON.parse(readFileSync(path.join(repoRoot(), 'package-lock.json'), 'utf8')));
const manifest = manifestSchema.parse(
  JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')),
);

/** Where npm would place `name` for the package at `from`: nested first, then up to the root. */
function resolves(from: string, name: string): boolean {
  let base = from;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

describe('package-lock.json installs with `npm ci` on Linux and macOS', () => {
  it("records every platform's optional package, not only the platform that wrote it", () => {
    const missing = Object.entries(lock.packages).flatMap(([at, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(at, name))
        .map((name) => `${at || '<root>'} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it.each(['linux', 'darwin'])('has native binaries for %s', (os) => {
    const forOs = Object.keys(lock.packages).filter((at) => lock.packages[at]?.os?.includes(os));
    expect(forOs.some((at) => at.includes('@swc/core-'))).toBe(true);
    expect(forOs.some((at) => at.includes('@esbuild/'))).toBe(true);
  });

  it("every locked package accepts the lowest Node of each major that package.json's engines names (no EBADENGINE)", () => {
    const range = manifest.engines.node;
    const lowest = range.split('||').map((part) => semver.minVersion(part.trim())?.version ?? part);
    expect(lowest).toEqual(['20.19.0', '22.13.0', '24.0.0']);
    const refused = Object.entries(lock.packages).flatMap(([at, entry]) => {
      const wants = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!wants) return [];
      return lowest
        .filter((node) => !semver.satisfies(node, wants))
        .map((node) => `${at} wants ${wants}, not ${node}`);
    });
    expect(refused).toEqual([]);
  });
});
