import type { ListedProductResult } from '../connectors/bom-repair/listing';
import { counted } from '../connectors/counted';

/**
 * What a BOM repair run shows as its current details (the Web UI's run page, `temporal workflow metadata
 * --workflow-id <id>`): while it runs, its phase and counts; at its end, one screen: what it repaired, what it left
 * and why, and the next step. The result JSON lists every line; this names the first few and counts the rest.
 */

export interface BomRepairView {
  selector: string;
  dryRun: boolean;
  productsScanned: number;
  candidates: number;
  productsProcessed: number;
  productsWithForks: number;
  productsFailed?: number;
  linesRepaired: number;
  linesWouldRepair: number;
  linesAmbiguous: number;
  linesUnmatched: number;
  linesFailed: number;
  notFound: readonly string[];
  products: readonly ListedProductResult[];
  productsOmitted: number;
  listingsMoved?: readonly string[];
}

/** Lines of each list the details name before `… and N more`. */
export const DETAILS_ITEMS = 5;
const REASON_CHARS = 300;

const clip = (text: string) => (text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text);
const nameOf = (product: ListedProductResult) => product.externalId ?? product.productId;

function lineCounts(view: BomRepairView): string {
  return [
    view.dryRun ? `${view.linesWouldRepair} to repair` : `${view.linesRepaired} repaired`,
    `${view.linesAmbiguous} ambiguous`,
    `${view.linesUnmatched} unmatched`,
    `${view.linesFailed} failed`,
  ].join(', ');
}

/** `BOM repair (all): repairing, 40 of 120 candidate products done; lines: 12 repaired, 2 ambiguous, …`. */
export function bomRepairProgressDetails(view: BomRepairView, phase: string): string {
  const head = `BOM repair (${view.selector})${view.dryRun ? ', dry run' : ''}: ${phase}`;
  if (phase === 'scanning products') return `${head}: looking for products that own a BOM…`;
  return `${head}, ${view.productsProcessed} of ${view.candidates} candidate products done (${view.productsScanned} scanned); lines: ${lineCounts(view)}`;
}

function bounded(items: readonly string[], total: number, what: string): string[] {
  const shown = items.slice(0, DETAILS_ITEMS).map((item) => `- ${item}`);
  if (total > shown.length)
    shown.push(`- … and ${total - shown.length} more ${what} (the run's result lists them)`);
  return shown;
}

/** What the run left alone, one entry a product problem, a header problem or a line, in the result's order. */
function leftItems(products: readonly ListedProductResult[]): string[] {
  const items: string[] = [];
  for (const product of products) {
    if (product.problem !== undefined)
      items.push(`${nameOf(product)}: not repaired: ${clip(product.problem)}`);
    for (const header of product.headers)
      if (header.problem !== undefined)
        items.push(`${nameOf(product)}, BOM ${header.headerId}: left alone: ${clip(header.problem)}`);
    for (const line of product.lines)
      if (line.outcome !== 'repaired' && line.outcome !== 'would_repair')
        items.push(
          `${nameOf(product)}, BOM ${line.headerId} line ${line.lineId}: ${line.outcome}${line.reason ? `: ${clip(line.reason)}` : ''}`,
        );
  }
  return items;
}

function nextStep(view: BomRepairView, left: readonly string[]): string {
  const steps: string[] = [];
  if (view.listingsMoved?.length)
    steps.push(
      'run again: products were archived or deleted during the scan, so some may not have been looked at',
    );
  if (view.notFound.length > 0)
    steps.push(`check the product ids not found: ${view.notFound.slice(0, DETAILS_ITEMS).join(', ')}`);
  const problems = view.linesAmbiguous + view.linesUnmatched + view.linesFailed + (view.productsFailed ?? 0);
  if (problems > 0) {
    const acceptable = left.some((item) => item.includes('run again with --accept-current-source'));
    steps.push(
      acceptable
        ? "lines whose source changed after the fork: run again with --accept-current-source (acceptCurrentSource in the input) to take the source as it stands now; the others: give them their components by hand (the result lists each line's candidates)"
        : "give the lines left alone their components by hand (the result lists each line's candidates), or fix what the reason names and run again",
    );
  }
  if (view.dryRun && view.linesWouldRepair > 0)
    steps.push('run again without --dry-run to write the repairs');
  return steps.length > 0 ? `Next: ${steps.join('; ')}.` : 'Next: nothing to do.';
}

/** The run's end: counts, the first repaired products, the first lines left with why, and the next step. */
export function bomRepairOutcomeDetails(view: BomRepairView, status: string): string {
  const head =
    `BOM repair (${view.selector})${view.dryRun ? ', dry run' : ''}: ${status}: lines ${lineCounts(view)}; ` +
    `${counted(view.productsWithForks, 'product')} with forks of ${view.productsScanned} scanned` +
    (view.productsFailed ? `, ${view.productsFailed} not repaired` : '') +
    (view.notFound.length > 0 ? `, ${view.notFound.length} not found` : '');
  const repairedProducts = view.products.filter((p) => p.repaired + p.wouldRepair > 0);
  const repaired = repairedProducts.map(
    (p) =>
      `${nameOf(p)}: ${view.dryRun ? `${p.wouldRepair} to repair` : `${counted(p.repaired, 'line')} repaired`}` +
      (p.verified === true ? ', verified' : p.verified === false ? ', NOT verified' : ''),
  );
  const left = leftItems(view.products);
  // Lines the result counts but does not list are left too.
  const listedLines = view.products.reduce(
    (sum, p) => sum + p.lines.filter((l) => l.outcome !== 'repaired' && l.outcome !== 'would_repair').length,
    0,
  );
  const leftTotal =
    left.length -
    listedLines +
    Math.max(listedLines, view.linesAmbiguous + view.linesUnmatched + view.linesFailed);
  return [
    head,
    ...(repaired.length > 0
      ? [view.dryRun ? 'Would repair:' : 'Repaired:', ...bounded(repaired, repaired.length, 'products')]
      : []),
    ...(left.length > 0 ? ['Left alone:', ...bounded(left, leftTotal, 'left')] : []),
    nextStep(view, left),
  ].join('\n');
}
