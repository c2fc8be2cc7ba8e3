// What a retry of a PLM run (`trace-sync retry`) writes: the products its original run rejected, stored by that run's
// finish step beside its rejects file, and the sheet's products under them; every other product of the rejects file
// that the catalogue holds is carried context, as it was on the original run's day.
import { readFile } from 'node:fs/promises';
import { legacyRunKeyOf, runKeyOf } from '../staging';
import { writeFileAtomically } from '../storage';
import type { ExistingProduct } from './catalogue';
import type { ProductDraft } from './draft';
import {
  plmRun,
  REJECTED_PRODUCTS,
  rejectedProductsSchema,
  type PlmRun,
  type RejectIssue,
  type SheetStage,
} from './staged-run';

/** The finish step's list of the products the run rejected (REJECTED_PRODUCTS), in its run folder and store. */
export async function storeRejectedProducts(run: PlmRun, issues: readonly RejectIssue[]): Promise<void> {
  // A key refused for differing only in case from a catalogue product's (`meantKey`) means that product: the fixed row
  // names it, and the retry writes it.
  const rejected = [
    ...new Set(
      issues.flatMap((issue) =>
        [issue.externalId, issue.meantKey].filter((key): key is string => key !== undefined),
      ),
    ),
  ];
  await writeFileAtomically(run.file(REJECTED_PRODUCTS), `${JSON.stringify({ externalIds: rejected })}\n`);
  await run.publish(REJECTED_PRODUCTS);
}

/** The products the run `retryOf` rejected, from its run folder (REJECTED_PRODUCTS); null when it has no such list. */
export async function originalRejections(
  run: PlmRun,
  retryOf: string,
): Promise<{ of: string; rejected: string[] | null }> {
  // A run started before long ids were given a hashed folder keeps its list under the id cut at 200 characters.
  let path: string | null = null;
  for (const key of new Set([runKeyOf(retryOf), legacyRunKeyOf(retryOf)]))
    path ??= await plmRun(run.dataDir, key).fetch(REJECTED_PRODUCTS);
  if (path === null) return { of: retryOf, rejected: null };
  const list = rejectedProductsSchema.parse(JSON.parse(await readFile(path, 'utf8')));
  return { of: retryOf, rejected: list.externalIds };
}

/**
 * A retry re-imports rows of the original run's rejects file, whose cells are as they were that day, carried cells
 * too (a flat SKU row holds its style's and colour's). A product already in the catalogue that the original run did
 * not reject was written (or left as it was) then, and may have been changed since: here it is only a reference,
 * never written. Spec 01, PUT: only the fields sent change.
 */
export function retryReferences(
  drafts: readonly ProductDraft[],
  products: readonly ExistingProduct[],
  retry: SheetStage['retry'],
): ProductDraft[] {
  if (!retry?.rejected) return [...drafts];
  const rejected = rejectedWithChildren(drafts, new Set(retry.rejected));
  const existing = new Set(products.flatMap((product) => (product.externalId ? [product.externalId] : [])));
  return drafts.map((draft) =>
    existing.has(draft.externalId) && !rejected.has(draft.externalId)
      ? { ...draft, referenceOnly: true }
      : draft,
  );
}

/**
 * The products the original run rejected, and the sheet's products under them: a child of a rejected product was
 * rejected with it, though its row's problem may be told under the parent's key only (a flat row whose style is
 * wrong). Each product's chain is walked once; a chain that loops ends at its first repeat.
 */
function rejectedWithChildren(drafts: readonly ProductDraft[], rejected: ReadonlySet<string>): Set<string> {
  const parentOf = new Map(drafts.map((draft) => [draft.externalId, draft.parentExternalId]));
  const known = new Map<string, boolean>([...rejected].map((externalId) => [externalId, true]));
  for (const { externalId } of drafts) {
    const chain = new Set<string>();
    let at: string | null | undefined = externalId;
    let verdict = false;
    while (at !== null && at !== undefined && !chain.has(at)) {
      const settled = known.get(at);
      if (settled !== undefined) {
        verdict = settled;
        break;
      }
      chain.add(at);
      at = parentOf.get(at);
    }
    for (const link of chain) known.set(link, verdict);
  }
  return new Set([...known].filter(([, isRejected]) => isRejected).map(([externalId]) => externalId));
}
