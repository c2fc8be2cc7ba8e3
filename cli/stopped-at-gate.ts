import { z } from 'zod';

/** What a run cancelled at its approval gate keeps in its memo (workflows/approval.ts). */
const gateMemo = z.object({ cancelled: z.literal(true), cancelledAt: z.literal('approval') });

/** A run cancelled while its plan awaited approval: it wrote nothing, and its plan was never approved. */
export function cancelledAwaitingApproval(memo: Record<string, unknown> | undefined): boolean {
  return gateMemo.safeParse(memo).success;
}

/** Why such a run wrote nothing, and what to do: the tail of the CLI's stop lines for it. */
export const NOT_APPROVED = 'nothing was written, as the plan was never approved';
export const NEW_PLAN = 'run the same input again to make a new plan';
