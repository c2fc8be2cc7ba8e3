import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LocalStore } from '../../../connectors/storage';
import { startStagingSweeps } from '../../../worker/staging-sweeps';
import { KEPT, OPEN_STAGED, STAGED, writeLayout } from '../../harness/staging-sweep-cases';

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
      expect(await sweeps.pass(Date.now() + 30 * 24 * 60 * 60 * 1000)).toBeNull();
      expect((await store.list('')).sort()).toEqual([...STAGED, ...KEPT, ...OPEN_STAGED].sort());
    } finally {
      await sweeps.stop();
    }
  });
});
