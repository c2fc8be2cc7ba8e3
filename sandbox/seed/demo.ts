import type { SeedDocument } from '../core/seed';
import { demoBomSection } from './demo-boms';
import { demoCatalogueSection } from './demo-catalogue';
import { demoCertificateSection } from './demo-certificates';
import { demoMaterialSection } from './demo-materials';
import { demoNetworkDataSection } from './demo-network-data';
import { demoNetwork } from './demo-network';

/**
 * The built-in demo fixture: the network (companies, keys, users) plus each domain's demo section.
 * Domains add their section provider to `sections` (one import line each). `now` anchors relative dates.
 */
const sections: Array<(now: number) => Record<string, unknown>> = [
  demoCatalogueSection,
  demoBomSection,
  demoMaterialSection,
  demoCertificateSection,
  demoNetworkDataSection,
];

export function buildDemoSeed(now: number): SeedDocument {
  const seed: Record<string, unknown> = { ...demoNetwork };
  for (const section of sections) Object.assign(seed, section(now));
  return seed as SeedDocument;
}
