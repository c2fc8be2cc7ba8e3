import { spawnSync } from 'node:child_process';

/**
 * Spec 01 "Dates": "audit timestamps (`createdAt`, `updatedAt`) are ISO 8601 UTC values". One without a zone
 * (`2026-11-01T10:00:00.123`) is still UTC: a worker in New York must read it as the same instant as one in UTC.
 * The checks run in a child process started with TZ=America/New_York (a process cannot change its own zone).
 */
describe('a zone-less audit timestamp is read as UTC on a worker in any zone', () => {
  const inNewYork = (): Record<string, unknown> => {
    const script = `
      const { advanceMark, ordersSince, INITIAL_MARK } = require(${JSON.stringify(require.resolve('../../../connectors/erp-pull/pull'))});
      const { IncrementalSync } = require(${JSON.stringify(require.resolve('../../../connectors/traceability/pagination'))});
      const { parseRepairBomInput } = require(${JSON.stringify(require.resolve('../../../connectors/bom-repair/job-input'))});
      (async () => {
        const noon = Date.UTC(2026, 10, 1, 12);
        const page = {
          items: [
            { id: 'before-noon', updatedAt: '2026-11-01T10:00:00.123' },
            { id: 'after-noon', updatedAt: '2026-11-01T13:00:00' },
          ],
          pagination: { page: 1, limit: 100, total: 2, totalPages: 1 },
        };
        const sync = new IncrementalSync(async () => page, { highWaterMarkMs: noon, idsAtHighWaterMark: [] });
        const synced = [];
        for await (const item of sync) synced.push(item.id);
        const out = {
          offsetMinutes: new Date(Date.UTC(2026, 10, 1)).getTimezoneOffset(),
          pullMark: advanceMark(INITIAL_MARK, [{ id: 'o1', updatedAt: '2026-11-01T10:00:00.123' }]).updatedAtMs,
          pullSince: ordersSince({ updatedAtMs: noon, idsAtMark: [] }, page.items).map((o) => o.id),
          synced,
          syncMark: sync.checkpoint().highWaterMarkMs,
          bomUpdatedAfter: parseRepairBomInput({ updatedAfter: '2026-11-01T10:00:00' }).selector,
          bomUpdatedAfterMinutes: parseRepairBomInput({ updatedAfter: '2026-11-01T10:00' }).selector,
        };
        process.stdout.write(JSON.stringify(out));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const child = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TZ: 'America/New_York' },
    });
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout) as Record<string, unknown>;
  };

  it('order pull mark, incremental sync and the BOM repair updatedAfter input, under TZ=America/New_York', () => {
    const out = inNewYork();
    // The child really runs west of UTC.
    expect(out['offsetMinutes']).toBeGreaterThan(0);
    expect(out['pullMark']).toBe(Date.UTC(2026, 10, 1, 10, 0, 0, 123));
    expect(out['pullSince']).toEqual(['after-noon']);
    expect(out['synced']).toEqual(['after-noon']);
    expect(out['syncMark']).toBe(Date.UTC(2026, 10, 1, 13));
    expect(out['bomUpdatedAfter']).toEqual({
      kind: 'updatedAfter',
      updatedAfterUnixMs: Date.UTC(2026, 10, 1, 10),
    });
    expect(out['bomUpdatedAfterMinutes']).toEqual({
      kind: 'updatedAfter',
      updatedAfterUnixMs: Date.UTC(2026, 10, 1, 10),
    });
  });
});
