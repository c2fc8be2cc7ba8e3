import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LocalStore } from '../../../connectors/storage';
import { startStagingSweeps } from '../../../worker/staging-sweeps';
import { KEPT, OPEN_RUNS, OPEN_STAGED, STAGED, writeLayout } from '../../harness/staging-sweep-cases';

const DAY = 24 * 60 * 60 * 1000;

describe("the worker's staging sweeps", () => {
  let root = '';
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sweeps-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('remove nothing while Temporal cannot say which runs are open', async () => {
    const store = new LocalStore(root);
    await writeLayout(store);
    const sweeps = startStagingSweeps({
      store,
      openRuns: () => Promise.reject(new Error('14 UNAVAILABLE: connection refused')),
      logger: pino({ level: 'silent' }),
    });
    try {
      expect(await sweeps.pass(Date.now() + 30 * DAY)).toBeNull();
      expect((await store.list('')).sort()).toEqual([...STAGED, ...KEPT, ...OPEN_STAGED].sort());
    } finally {
      await sweeps.stop();
    }
  });

  it('keep staged data the retention set (TRACE_STAGING_RETENTION_DAYS) and say it once at start', async () => {
    const store = new LocalStore(root);
    await writeLayout(store);
    const lines: { msg: string; retentionDays?: unknown }[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line) as { msg: string; retentionDays?: unknown }) },
    );
    const sweeps = startStagingSweeps({
      store,
      openRuns: () => Promise.resolve(OPEN_RUNS),
      logger,
      retentionDays: 30,
    });
    try {
      // Past the default 7 days, within the 30 set: all stays.
      expect(await sweeps.pass(Date.now() + 29 * DAY)).toMatchObject({ removed: 0 });
      expect((await store.list('')).sort()).toEqual([...STAGED, ...KEPT, ...OPEN_STAGED].sort());
      expect(await sweeps.pass(Date.now() + 31 * DAY)).toMatchObject({ removed: STAGED.length });
      expect((await store.list('')).sort()).toEqual([...KEPT, ...OPEN_STAGED].sort());
    } finally {
      await sweeps.stop();
    }
    expect(lines.filter((line) => line.retentionDays !== undefined)).toEqual([
      expect.objectContaining({
        retentionDays: 30,
        msg: 'Staging sweep: the staged data of ended runs is removed 30 days after it was written (TRACE_STAGING_RETENTION_DAYS)',
      }),
    ]);
  });
});
