import { noDiscrepancies } from './compare';
import { FULL_CHAOS, chaosSeed } from './profiles';
import { runChaos, type ChaosFigures } from './scenario';

/**
 * The full chaos run (`npm run test:chaos`; CHAOS_SEED=<n> replays one): a 2,000-row PLM import and a 500-order
 * push at once on one task queue, the worker process SIGKILLed five times at seeded points anywhere in the run
 * (reading and planning included) and restarted, under a changing mix of 5xx, 429 bursts, drops after commit,
 * slow reads and slow writes beyond the client's timeout (committed late, or committed with the answer late).
 */
describe('chaos (full): 2,000 PLM rows and 500 orders through worker kills and API faults', () => {
  let figures: ChaosFigures;

  beforeAll(async () => {
    figures = await runChaos({ ...FULL_CHAOS, seed: chaosSeed() });
  }, FULL_CHAOS.deadlineMs + 120_000);

  it('kills the worker at least four times mid-run, and both jobs complete without rejecting a row', () => {
    expect(figures.kills).toBe(FULL_CHAOS.kills);
    expect(figures.kills).toBeGreaterThanOrEqual(4);
    expect(figures.workerStarts).toBe(FULL_CHAOS.kills + 1);
    expect(figures.unexpectedWorkerExits).toEqual([]);
    expect(figures.jobs.plm).toMatchObject({ status: 'completed', rejected: 0 });
    expect(figures.jobs.erp).toMatchObject({ status: 'completed', rejected: 0 });
  });

  it('injected every kind of fault', () => {
    const f = figures.faults;
    expect({
      serverErrors: f.serverErrors > 0,
      burst429: f.burst429 > 0,
      droppedAfterCommit: f.droppedAfterCommit > 0,
      slowReadsBeyondTimeout: f.slowReadsBeyondTimeout > 0,
      slowWritesCommittedLate: f.slowWritesCommittedLate > 0,
      slowAnswersAfterCommit: f.slowAnswersAfterCommit > 0,
    }).toEqual({
      serverErrors: true,
      burst429: true,
      droppedAfterCommit: true,
      slowReadsBeyondTimeout: true,
      slowWritesCommittedLate: true,
      slowAnswersAfterCommit: true,
    });
  });

  it('leaves the platform exactly as the inputs say: no duplicate, no loss, no half-applied order', () => {
    expect(figures.outcome).toEqual(noDiscrepancies());
  });
});
