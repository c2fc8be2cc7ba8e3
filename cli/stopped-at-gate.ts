import { z } from 'zod';

/** What a run cancelled at its approval gate keeps in its memo (workflows/approval.ts): while planning, or after. */
const gateMemo = z.object({ cancelled: z.literal(true), cancelledAt: z.enum(['planning', 'approval']) });

/**
 * Where a run cancelled at its approval gate stopped, in the words of the CLI's stop line (`… cancelled while it made
 * its plan`): it wrote nothing, and its plan was never approved. Undefined for any other run.
 */
export function cancelledAtGate(memo: Record<string, unknown> | undefined): string | undefined {
  const parsed = gateMemo.safeParse(memo);
  if (!parsed.success) return undefined;
  return parsed.data.cancelledAt === 'planning'
    ? 'while it made its plan'
    : 'while its plan awaited approval';
}

/**
 * The tail of the CLI's stop lines for a run cancelled at its approval gate: where, why it wrote nothing, and what to
 * do (`while it made its plan: nothing was written, as the plan was never approved; run the same input again to make
 * a new plan`). Undefined for any other run.
 */
export function stoppedAtGate(memo: Record<string, unknown> | undefined): string | undefined {
  const where = cancelledAtGate(memo);
  return where === undefined
    ? undefined
    : `${where}: nothing was written, as the plan was never approved; run the same input again to make a new plan`;
}
