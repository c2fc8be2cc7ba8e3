import type { ChaosOptions } from './scenario';

/** `npm test`: 200 rows + 60 orders, 2 kills while both jobs apply (or one is done); meant to stay under 90 s. */
export const SHORT_CHAOS: Omit<ChaosOptions, 'seed'> = {
  label: 'short',
  styles: 4,
  orders: 60,
  kills: 2,
  killOn: 'writes',
  killOnlyWhileApplying: true,
  apiTimeoutMs: 2_000,
  phaseCalls: [5, 12],
  slowReadsMaxMs: 3_000,
  burst429: [3, 10],
  erpBatchSize: 20,
  plmBatchSize: 50,
  // Each kill costs about 20 s (the batch heartbeat timeout); the rest is margin for a loaded machine. (A 55 s stall
  // after a lost answer, CHAOS_SEED=584248776, was the pacer's: see the rate limiter's "lost answer" test.)
  deadlineMs: 270_000,
};

/** `npm run test:chaos`: 2,000 rows + 500 orders, 5 kills anywhere in the run (reads and planning included). */
export const FULL_CHAOS: Omit<ChaosOptions, 'seed'> = {
  label: 'full',
  styles: 40,
  orders: 500,
  kills: 5,
  killOn: 'calls',
  killOnlyWhileApplying: false,
  apiTimeoutMs: 2_500,
  phaseCalls: [25, 120],
  burst429: [8, 40],
  erpBatchSize: 100,
  plmBatchSize: 200,
  deadlineMs: 15 * 60_000,
};

/** CHAOS_SEED when given (to replay a run), else a fresh one; printed by the run either way. */
export function chaosSeed(): number {
  const given = process.env.CHAOS_SEED;
  if (given !== undefined && given.trim() !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new Error(`CHAOS_SEED must be a non-negative integer, not ${given}`);
    return seed;
  }
  return Math.floor(Math.random() * 1_000_000_000);
}
