import { z } from 'zod';
import { counted } from '../connectors/counted';
import { finishedSaid } from '../connectors/plm-import/rings-said';

// What a run that was stopped (cancelled, terminated, timed out) had written, in the operator's words, from the
// counts its job keeps in the run's memo: for the CLI's stop lines (`watch`, `--wait`, `cancel --wait`).

const count = z.number().int().min(0);
const rejectsFile = z.string().nullish();
/** The memo fields each job writes when it stops (workflows/*.ts, `upsertMemo`); any other field is left out. */
const plmMemo = z.object({
  products: z.object({
    created: count,
    updated: count,
    unchanged: count.optional(),
    archived: count.optional(),
    unarchived: count.optional(),
    rejected: count.optional(),
  }),
  /** Rows rejected (a row naming no product is no rejected product), since the memo has held it. */
  rejectedRows: count.optional(),
  rejectsFile,
  /** A cancel's finish: the swaps it wrote whole, and the code moves whose takers it wrote (a ring's own are not). */
  ringsFinished: z.array(z.array(z.string())).optional(),
  chainsFinished: z.array(z.array(z.string())).optional(),
});
const erpPushMemo = z.object({
  orders: z.object({
    created: count,
    patched: count,
    unchanged: count.optional(),
    rejected: count.optional(),
  }),
  rejectsFile,
});
const erpPullMemo = z.object({ orders: count });
const bomRepairMemo = z.object({
  linesRepaired: count,
  productsProcessed: count.optional(),
  candidates: count.optional(),
  linesAmbiguous: count.optional(),
  linesUnmatched: count.optional(),
  linesFailed: count.optional(),
  productsFailed: count.optional(),
});

/** `40 unchanged, 2 rejected, 3 rows rejected (rejects file: …)`: the non-zero ones. */
function notWritten(
  parts: [number | undefined, string][],
  rejected: [number | undefined, string][],
  file: string | null | undefined,
): string {
  const nonZero = (list: [number | undefined, string][]) =>
    list.filter(([n]) => (n ?? 0) > 0).map(([n, words]) => `${n} ${words}`);
  const said = nonZero(parts);
  const refused = nonZero(rejected);
  if (refused.length > 0) said.push(`${refused.join(', ')}${file ? ` (rejects file: ${file})` : ''}`);
  return said.length > 0 ? `; ${said.join(', ')}` : '';
}

/** `; the swap of A and B and the code move from C to D written whole before the stop`, as the run's details say. */
function finishedWritten(rings: string[][] = [], chains: string[][] = []): string {
  const { said } = finishedSaid(rings, chains);
  return said === '' ? '' : `; ${said} written whole before the stop`;
}

/**
 * What a stopped run wrote, in words, from the counts its job put in its memo: `12 products created, 3 updated; 40
 * unchanged, 2 rejected (rejects file: …)`; undefined when the memo holds none (a run stopped before its writes).
 */
export function wroteBeforeStop(memo: Record<string, unknown> | undefined): string | undefined {
  if (!memo) return undefined;
  const plm = plmMemo.safeParse(memo);
  if (plm.success) {
    const { products: p, rejectedRows: rows, rejectsFile: file, ringsFinished, chainsFinished } = plm.data;
    const written =
      p.created + p.updated + (p.unarchived ?? 0) === 0
        ? 'no products created or updated'
        : `${counted(p.created, 'product')} created, ${p.updated} updated${p.unarchived ? `, ${p.unarchived} unarchived` : ''}`;
    const rest: [number | undefined, string][] = [
      [p.unchanged, 'unchanged'],
      [p.archived, 'archived left alone'],
    ];
    const rejected: [number | undefined, string][] = [
      [p.rejected, 'rejected'],
      [rows, rows === 1 ? 'row rejected' : 'rows rejected'],
    ];
    return `${written}${notWritten(rest, rejected, file)}${finishedWritten(ringsFinished, chainsFinished)}`;
  }
  const push = erpPushMemo.safeParse(memo);
  if (push.success) {
    const { orders: o, rejectsFile: file } = push.data;
    const written =
      o.created + o.patched === 0
        ? 'no orders created or patched'
        : `${counted(o.created, 'order')} created, ${o.patched} patched`;
    return `${written}${notWritten([[o.unchanged, 'unchanged']], [[o.rejected, 'rejected']], file)}`;
  }
  const pull = erpPullMemo.safeParse(memo);
  if (pull.success)
    return pull.data.orders === 0 ? 'no orders pulled' : `${counted(pull.data.orders, 'order')} pulled`;
  const bom = bomRepairMemo.safeParse(memo);
  if (bom.success) {
    const b = bom.data;
    const after =
      b.productsProcessed !== undefined && b.candidates !== undefined
        ? `, after ${b.productsProcessed} of ${counted(b.candidates, 'product')}`
        : '';
    const lines = (
      [
        [b.linesAmbiguous, 'ambiguous'],
        [b.linesUnmatched, 'unmatched'],
        [b.linesFailed, 'failed'],
      ] as const
    ).flatMap(([n, words]) => (n ? [[n, words] as const] : []));
    const problems = lines.map(([n, words], i) => `${i === 0 ? counted(n, 'line') : n} ${words}`);
    if (b.productsFailed) problems.push(`${counted(b.productsFailed, 'product')} failed`);
    return `${counted(b.linesRepaired, 'BOM line')} repaired${after}${problems.length ? `; ${problems.join(', ')}` : ''}`;
  }
  return undefined;
}
