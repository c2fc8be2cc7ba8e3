import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { forEachBounded, RunFolder } from '../../../connectors/staging';

const entrySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('intent'), id: z.string(), write: z.enum(['create', 'update']) }),
  z.strictObject({ kind: z.literal('outcome'), id: z.string(), outcome: z.enum(['created', 'rejected']) }),
]);
type Entry = z.infer<typeof entrySchema>;

describe('batch journal of a run folder', () => {
  let dataDir: string;
  const run = () =>
    new RunFolder<Entry>(dataDir, 'run-1', [], {
      folder: 'journal',
      schema: entrySchema,
      keyOf: (entry) => entry.id,
    });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'batch-journal-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('a retried attempt sees what was settled and which write was under way, past a torn last line', async () => {
    const journal = run().journal(0);
    await journal.append({ kind: 'intent', id: 'A', write: 'create' });
    await journal.append({ kind: 'outcome', id: 'A', outcome: 'created' });
    await journal.append({ kind: 'intent', id: 'B', write: 'update' });
    await appendFile(journal.path, '{"kind":"outcome","id":"B'); // the worker died mid-line

    const { done, pending } = await journal.resume();
    expect([...done.keys()]).toEqual(['A']);
    expect(pending.get('B')?.write).toBe('update');
    await journal.append({ kind: 'outcome', id: 'B', outcome: 'created' });
    expect((await journal.state()).done.get('B')?.outcome).toBe('created');
  });

  it('settleAll journals each outcome, skips records settle gives none for, and keeps the earlier ones', async () => {
    const journal = run().journal(1);
    await journal.append({ kind: 'outcome', id: 'A', outcome: 'created' });
    const { done } = await journal.resume();
    const heard: number[] = [];
    const outcomes = await journal.settleAll(
      done,
      ['B', 'skip', 'C'],
      2,
      async (id) =>
        id === 'skip' ? undefined : { kind: 'outcome' as const, id, outcome: 'rejected' as const },
      (settled) => heard.push(settled),
    );
    expect([...outcomes.keys()].sort()).toEqual(['A', 'B', 'C']);
    expect(heard.sort()).toEqual([2, 3]);
    expect((await run().outcomes()).map((outcome) => outcome.id).sort()).toEqual(['A', 'B', 'C']);
    expect((await run().outcomes(1)).map((outcome) => outcome.id)).toEqual([]);
  });

  it('settleAll, once stopped (the run cancelled), begins no further record, journals the ones under way, then throws the reason', async () => {
    const journal = run().journal(2);
    const stop = new AbortController();
    const begun: string[] = [];
    const cancel = new Error('cancelled');
    const settling = journal.settleAll(
      new Map(),
      ['A', 'B', 'C', 'D', 'E'],
      2,
      async (id) => {
        begun.push(id);
        if (id === 'B') stop.abort(cancel); // the cancel arrives while A and B are being written
        await new Promise((resolve) => setTimeout(resolve, 10));
        return { kind: 'outcome' as const, id, outcome: 'created' as const };
      },
      () => undefined,
      stop.signal,
    );
    await expect(settling).rejects.toBe(cancel);
    expect(begun).toEqual(['A', 'B']);
    expect((await journal.state()).done.size).toBe(2);
  });

  it('settleAll stopped after its last record has begun returns every outcome', async () => {
    const stop = new AbortController();
    const outcomes = await run()
      .journal(3)
      .settleAll(
        new Map(),
        ['A'],
        2,
        async (id) => {
          stop.abort(new Error('cancelled'));
          return { kind: 'outcome' as const, id, outcome: 'created' as const };
        },
        () => undefined,
        stop.signal,
      );
    expect([...outcomes.keys()]).toEqual(['A']);
  });

  it('refuses to journal an entry the reader would skip', async () => {
    const bad = { kind: 'outcome', id: 'A', outcome: 'lost' } as unknown as Entry;
    await expect(run().journal(0).append(bad)).rejects.toThrow();
  });
});

describe('forEachBounded', () => {
  it('runs at most `limit` at once and, after a failure, starts nothing new before throwing it', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const work = async (item: number) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, item === 2 ? 1 : 20));
      running -= 1;
      if (item === 2) throw new Error('item 2 failed');
    };
    await expect(forEachBounded([1, 2, 3, 4, 5, 6, 7, 8], 3, work)).rejects.toThrow('item 2 failed');
    expect(most).toBe(3);
    expect(started).toEqual([1, 2, 3]);
    expect(running).toBe(0);
  });

  it('follows a width that changes as items finish: more lanes when it grows, fewer when it shrinks', async () => {
    let width = 2;
    let running = 0;
    const most: number[] = [];
    const done: number[] = [];
    const work = async (item: number) => {
      running += 1;
      most[item] = running;
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      done.push(item);
      if (done.length === 2) width = 6; // e.g. the first answers showed a long round trip
      if (done.length === 14) width = 1;
    };
    const items = Array.from({ length: 24 }, (_, index) => index);
    await forEachBounded(items, () => width, work);
    expect([...done].sort((a, b) => a - b)).toEqual(items);
    expect(Math.max(...most.slice(0, 2))).toBeLessThanOrEqual(2);
    expect(Math.max(...most)).toBe(6);
    expect(Math.max(...most.slice(20))).toBe(1);
    expect(running).toBe(0);
  });
});
