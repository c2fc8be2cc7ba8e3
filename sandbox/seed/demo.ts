import type { SeedDocument } from '../core/seed';
import { demoNetwork } from './demo-network';

/**
 * The built-in demo fixture: the network (companies, keys, users) plus each domain's demo section.
 * Domains add their section provider to `sections` (one import line each). `now` anchors relative dates.
 */
const sections: Array<(now: number) => Record<string, unknown>> = [];

export function buildDemoSeed(now: number): SeedDocument {
  const seed: Record<string, unknown> = { ...demoNetwork };
  for (const section of sections) Object.assign(seed, section(now));
  return seed as SeedDocument;
}
