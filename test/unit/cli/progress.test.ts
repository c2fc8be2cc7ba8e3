import { jsonLines, RateEstimator, renderBar, snapshotOf, terminalBar } from '../../../cli/progress';

function output(isTTY: boolean) {
  const writes: string[] = [];
  return { out: { isTTY, columns: 100, write: (text: string) => writes.push(text) }, writes };
}

describe('CLI progress', () => {
  it("reads each job's progress answer into phase, done of total", () => {
    expect(
      snapshotOf({ phase: 'applying', total: 500, done: 120, created: 100, batchesDone: 1, batchCount: 3 }),
    ).toEqual({ phase: 'applying', done: 120, total: 500, unit: 'products' });
    expect(snapshotOf({ phase: 'pushing orders', batchesDone: 2, batchCount: 5, counts: {} })).toEqual({
      phase: 'pushing orders',
      done: 2,
      total: 5,
      unit: 'batches',
    });
    expect(snapshotOf({ phase: 'repairing', productsProcessed: 3, candidates: 9, selector: 'all' })).toEqual({
      phase: 'repairing',
      done: 3,
      total: 9,
      unit: 'products',
    });
    expect(snapshotOf({ phase: 'reading certificates', certificates: 300, asOf: '2026-11-01' })).toEqual({
      phase: 'reading certificates',
      done: 300,
      total: null,
      unit: 'certificates',
    });
    expect(snapshotOf({ files: 4, done: 1 })).toEqual({ phase: 'running', done: 1, total: 4, unit: 'files' });
    expect(snapshotOf('garbage')).toEqual({ phase: 'running', done: null, total: null, unit: '' });
  });

  it('renders phase, bar, done/total, rate and ETA on one line no wider than the terminal', () => {
    const line = renderBar({ phase: 'applying', done: 120, total: 500, unit: 'products' }, 35.24, 11, 80);
    expect(line).toBe('applying          [####----------------]  120/500 products  35.2/s  ETA 0:11');
    expect(
      renderBar({ phase: 'applying', done: 1, total: 2, unit: 'products' }, null, null, 10),
    ).toHaveLength(9);
  });

  it('estimates rate and ETA from the samples, and starts again when a new phase counts from zero', () => {
    const rates = new RateEstimator();
    rates.add(0, 0);
    rates.add(2000, 100);
    expect(rates.rate()).toBe(50);
    expect(rates.etaSeconds(100, 600)).toBe(10);
    rates.add(3000, 5);
    expect(rates.rate()).toBeNull();
  });

  it('on a terminal, redraws one line in place (carriage return, erase line) and erases it at the end', () => {
    const { out, writes } = output(true);
    const bar = terminalBar(out);
    bar.update({ phase: 'planning', done: 0, total: null, unit: 'products' }, 0);
    bar.update({ phase: 'applying', done: 10, total: 20, unit: 'products' }, 1000);
    bar.finish();
    expect(writes.every((text) => text.startsWith('\r\x1b[2K'))).toBe(true);
    expect(writes.join('')).not.toContain('\n');
    expect(writes[writes.length - 1]).toBe('\r\x1b[2K');
  });

  it('elsewhere, one JSON line per phase change and at most one per 5 s while a phase goes on', () => {
    const { out, writes } = output(false);
    const lines = jsonLines(out, 5000);
    lines.update({ phase: 'planning', done: 0, total: null, unit: 'products' }, 0);
    lines.update({ phase: 'applying', done: 0, total: 100, unit: 'products' }, 1000);
    lines.update({ phase: 'applying', done: 10, total: 100, unit: 'products' }, 2000);
    lines.update({ phase: 'applying', done: 20, total: 100, unit: 'products' }, 6500);
    lines.update({ phase: 'applying', done: 20, total: 100, unit: 'products' }, 20000);
    lines.update({ phase: 'done', done: 100, total: 100, unit: 'products' }, 20500);
    const parsed = writes.map(
      (line) => (JSON.parse(line) as { progress: { phase: string; done: number } }).progress,
    );
    expect(parsed.map((p) => [p.phase, p.done])).toEqual([
      ['planning', 0],
      ['applying', 0],
      ['applying', 20],
      ['done', 100],
    ]);
    expect(writes.every((line) => line.endsWith('\n') && line.indexOf('\n') === line.length - 1)).toBe(true);
  });

  it('a JSON line leaves out the figures a job has none for, rather than null or empty', () => {
    const { out, writes } = output(false);
    const lines = jsonLines(out, 5000);
    lines.update({ phase: 'checking', done: null, total: null, unit: '' }, 0);
    lines.update({ phase: 'reporting', done: 3, total: null, unit: 'certificates' }, 1000);
    lines.update({ phase: 'applying', done: 0, total: 100, unit: 'products' }, 2000);
    expect(writes.map((line) => (JSON.parse(line) as { progress: object }).progress)).toEqual([
      { at: new Date(0).toISOString(), phase: 'checking' },
      { at: new Date(1000).toISOString(), phase: 'reporting', done: 3, unit: 'certificates' },
      { at: new Date(2000).toISOString(), phase: 'applying', done: 0, total: 100, unit: 'products' },
    ]);
  });
});
