import { sweepStaging, type OpenRuns, type StagingSweepResult } from '../../connectors/staging';
import type { ObjectStore } from '../../connectors/storage';

const DAY = 24 * 60 * 60 * 1000;

/** What each job leaves in the store after a run: its staging (to go) and its files for operators (to stay). */
export const STAGED = [
  'runs/plm-failed/staging/manifest.json',
  'runs/plm-failed/staging/batch-00000.ndjson',
  'runs/plm-failed/journal/batch-00000.ndjson',
  'runs/erp-failed/batches/batch-0.ndjson',
  'runs/erp-failed/approved-batch-00000.ndjson',
  'runs/bom-failed-0d6e/candidates.ndjson',
  'runs/bom-failed-0d6e/to-retry.json',
  'runs/bom-failed-0d6e/journal/batch-00000.ndjson.d/0000000001.json',
  'staging/certificate-report/cert-failed/certificates.ndjson',
  'staging/certificate-report/cert-failed/fetch/1/1.json',
];
export const KEPT = [
  'runs/plm-failed/source.csv',
  'runs/plm-failed/plan.json',
  'runs/plm-failed/rejects.csv',
  'runs/plm-failed/result.json',
  'runs/erp-failed/manifest.json',
  'runs/erp-failed/outcomes/batch-00000.ndjson',
  'runs/bom-failed-0d6e/lines/lines.csv',
  'reports/certificate-expiry/2026-11-30/summary.json',
  'inputs/plm-failed/ss26.csv',
];
/**
 * Staging of runs still open: `plm-open` itself, an approval's `plm-open--plan`, a BOM repair `bom-open-<runId>` and
 * a certificate report `<asOf>-<runId>`.
 */
export const OPEN_STAGED = [
  'runs/plm-open/staging/manifest.json',
  'runs/plm-open--plan/staging/manifest.json',
  'runs/bom-open-5f1a/candidates.ndjson',
  'staging/certificate-report/2026-11-30-0193a7c2-77e1-7c4b-9f0e-1d2c3b4a5f60/fetch/1/1.json',
];
export const OPEN_RUNS: OpenRuns = {
  runKeys: new Set(['plm-open', 'bom-open', 'cert-nightly']),
  runIds: new Set(['0193a7c2-77e1-7c4b-9f0e-1d2c3b4a5f60']),
};

export async function writeLayout(store: ObjectStore): Promise<void> {
  for (const key of [...STAGED, ...KEPT, ...OPEN_STAGED]) await store.put(key, `{"key":"${key}"}\n`);
}

/** Sweeps until a pass reaches the end of the store (a pass lists at most `maxListed`). */
export async function sweepAll(
  store: ObjectStore,
  now: number,
  maxListed?: number,
): Promise<{ passes: StagingSweepResult[] }> {
  const passes: StagingSweepResult[] = [];
  let startAfter: string | undefined;
  do {
    const pass = await sweepStaging({ store, now, open: OPEN_RUNS, startAfter, maxListed });
    passes.push(pass);
    startAfter = pass.next;
  } while (startAfter !== undefined && passes.length < 100);
  return { passes };
}

/** The same cases on a folder store and on S3 (versitygw). */
export function sweepCases(store: () => ObjectStore): void {
  it('keeps staged data younger than 7 days, ended runs or not', async () => {
    await writeLayout(store());
    const { passes } = await sweepAll(store(), Date.now() + 6 * DAY);
    expect(passes.map((pass) => pass.removed)).toEqual([0]);
    expect((await store().list('')).sort()).toEqual([...STAGED, ...KEPT, ...OPEN_STAGED].sort());
  });

  it("removes ended runs' staging 7 days after it was written; their rejects, results, plans and reports stay", async () => {
    await writeLayout(store());
    const { passes } = await sweepAll(store(), Date.now() + 8 * DAY);
    expect(passes).toEqual([
      { listed: 21, removed: STAGED.length, keptOpen: OPEN_STAGED.length, next: undefined },
    ]);
    // Only runs/ and staging/certificate-report/ are listed: inputs/ and reports/ cost no listing.
    expect((await store().list('')).sort()).toEqual([...KEPT, ...OPEN_STAGED].sort());
  });

  it('lists a bounded number of objects per pass and resumes where it stopped', async () => {
    await writeLayout(store());
    const { passes } = await sweepAll(store(), Date.now() + 8 * DAY, 4);
    expect(passes.length).toBe(6); // 21 objects, 4 a pass
    expect(passes.every((pass) => pass.listed <= 4)).toBe(true);
    expect(passes.reduce((sum, pass) => sum + pass.removed, 0)).toBe(STAGED.length);
    expect((await store().list('')).sort()).toEqual([...KEPT, ...OPEN_STAGED].sort());
  });
}
