import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stagedRunOf } from '../../../connectors/staging';
import { LocalStore } from '../../../connectors/storage';
import { sweepAll, sweepCases, writeLayout } from '../../harness/staging-sweep-cases';

describe('staging sweep on a folder store', () => {
  let root = '';
  let store: LocalStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sweep-'));
    store = new LocalStore(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  sweepCases(() => store);

  it('leaves no empty staging folders behind, and drops a run folder left empty', async () => {
    await writeLayout(store);
    await sweepAll(store, Date.now() + 8 * 24 * 60 * 60 * 1000);
    expect(existsSync(join(root, 'runs/plm-failed/staging'))).toBe(false);
    expect(existsSync(join(root, 'runs/plm-failed/journal'))).toBe(false);
    expect(existsSync(join(root, 'runs/bom-failed-0d6e/journal'))).toBe(false);
    expect(existsSync(join(root, 'staging/certificate-report/cert-failed'))).toBe(false);
    expect(existsSync(join(root, 'staging/certificate-report'))).toBe(true);
    expect(existsSync(join(root, 'runs/plm-failed/rejects.csv'))).toBe(true);
  });

  it('tells staging from what a run leaves for operators', () => {
    expect(stagedRunOf('runs/r/staging/drafts.ndjson')).toBe('r');
    expect(stagedRunOf('runs/r/recheck-batch-00003.ndjson')).toBe('r');
    expect(stagedRunOf('runs/r/staging.csv')).toBeUndefined();
    expect(stagedRunOf('runs/r/held-back.csv')).toBeUndefined();
    expect(stagedRunOf('runs/r/plan.xlsx')).toBeUndefined();
    expect(stagedRunOf('staging/certificate-report/r')).toBeUndefined();
  });
});
