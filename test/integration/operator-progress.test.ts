import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { plmImport } from '../../workflows';
import { TraceStatus } from '../../worker/search-attributes';
import { repoRoot } from '../../worker/paths';
import { nativeRows, productCount, toCsv, type NativeRow } from '../unit/plm-activities/native-sheet';
import { cliEnv, cliProblems, startTestStack, traceSync, type TestStack } from '../harness';

/**
 * Issue 21, "the operator's view": `--wait` shows progress while it waits, on stderr (JSON lines when stderr is not a
 * terminal, a bar redrawn in place on one), `trace-sync watch` follows runs started elsewhere, and a queue nobody
 * polls is said at once instead of an hour of silence.
 */

const SHAPE = { styles: 40, coloursPerStyle: 2, sizesPerColour: 3 };

interface ProgressLine {
  progress: { at: string; phase: string; done?: number; total?: number; unit?: string };
}

function progressLines(stderr: string): ProgressLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{"progress"'))
    .map((line) => JSON.parse(line) as ProgressLine);
}

/** The result JSON: all of stdout (the progress and notes are on stderr), as `--wait | jq` reads it. */
function finalJson(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** stderr lines that are neither a progress line nor the `Started workflow` note. */
function otherLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter(
      (line) => line !== '' && !line.startsWith('{"progress"') && !line.startsWith('Started workflow '),
    );
}

describe("the operator's view while a run goes on", () => {
  let stack: TestStack;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'operator-progress-'));
    // Every API call takes 50 ms longer and the key allows 3,000 a minute: a few hundred products take some seconds,
    // long enough to show progress. (At 100,000 a minute the client keeps 64 calls in flight, as that allowance over
    // such round trips asks, and the whole apply took one redraw of the bar.)
    stack = await startTestStack({
      sandbox: { rateLimitPerMinute: 3_000, faults: { latencyMs: 50 } },
      config: { dataDir: path.join(dir, 'data') },
    });
    env = cliEnv(stack);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('"when stderr is not a terminal, one JSON line per phase change and at most one per few seconds there; stdout is the result JSON alone"', async () => {
    const file = path.join(dir, 'long-sheet.csv');
    writeFileSync(file, toCsv(nativeRows({ prefix: 'PRG', ...SHAPE })));
    const run = await traceSync(['plm-import', file, '--wait'], env);
    expect({ status: run.status, other: otherLines(run.stderr) }).toEqual({ status: 0, other: [] });
    expect(run.stderr).toMatch(/^Started workflow plm-import-long-sheet\.csv-\S+ on task queue \S+\n/);

    const lines = progressLines(run.stderr);
    const phases = lines.map((line) => line.progress.phase);
    expect(phases).toContain('applying');
    const applying = lines.filter((line) => line.progress.phase === 'applying');
    expect(applying[applying.length - 1]?.progress).toMatchObject({
      total: productCount(SHAPE),
      unit: 'products',
    });
    // A new line only on a phase change, or 5 s after the previous one.
    for (let i = 1; i < lines.length; i++) {
      const [previous, current] = [lines[i - 1]?.progress, lines[i]?.progress];
      if (previous && current && previous.phase === current.phase) {
        expect(Date.parse(current.at) - Date.parse(previous.at)).toBeGreaterThanOrEqual(4900);
      }
    }
    expect(finalJson(run.stdout)).toMatchObject({
      products: expect.objectContaining({ created: productCount(SHAPE) }),
    });
  }, 300_000);

  // A job that counts nothing (check-connection answers only its phase) has no figures to give: its lines leave them
  // out, rather than `"done":null,"total":null,"unit":""` that a log reader or a jq filter takes for a count.
  it('a JSON progress line carries only the figures its job has: check-connection --wait prints its phase and time alone', async () => {
    const run = await traceSync(['check-connection', '--wait'], env);
    expect({ status: run.status, other: otherLines(run.stderr) }).toEqual({ status: 0, other: [] });
    const lines = progressLines(run.stderr);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(Object.keys(line.progress).sort()).toEqual(['at', 'phase']);
  }, 300_000);

  it('trace-sync watch <workflowId> follows a run started elsewhere (here by a client) and prints its result', async () => {
    const file = path.join(dir, 'watched-sheet.csv');
    writeFileSync(
      file,
      toCsv(nativeRows({ prefix: 'WCH', styles: 8, coloursPerStyle: 2, sizesPerColour: 2 })),
    );
    const handle = await stack.client.workflow.start(plmImport, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('watched'),
      args: [{ file, batchSize: 10 }],
    });
    const run = await traceSync(['watch', handle.workflowId], env);
    expect({ status: run.status, other: otherLines(run.stderr) }).toEqual({ status: 0, other: [] });
    expect(progressLines(run.stderr).length).toBeGreaterThan(0);
    expect(finalJson(run.stdout)).toEqual(await handle.result());
  }, 300_000);

  it('"--wait against a queue nobody polls fails in under 15 s with the queue\'s name"', async () => {
    const queue = `nobody-polls-${Date.now()}`;
    const run = await traceSync(['check-connection', '--wait'], { ...env, TRACE_TASK_QUEUE: queue }, 60_000);
    expect(run.status).toBe(1);
    expect(run.ms).toBeLessThan(15_000);
    expect(run.stderr).toContain(`No worker polls task queue "${queue}"`);
    expect(run.stderr).toContain(`TRACE_TASK_QUEUE=${queue}`);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('Started workflow');
  }, 60_000);

  it('--wait that gives up (--timeout) while the run goes on exits 124, not 1 as a failed run does: a script must not start it again', async () => {
    const file = path.join(dir, 'timeout-sheet.csv');
    writeFileSync(file, toCsv(nativeRows({ prefix: 'TMO', ...SHAPE })));
    const run = await traceSync(['plm-import', file, '--wait', '--timeout', '2'], env);
    expect(run.status).toBe(124);
    expect(run.stdout).toBe('');
    const id = /Started workflow (\S+)/.exec(run.stderr)?.[1] as string;
    expect(cliProblems(run.stderr)).toEqual([
      `trace-sync: No result after 2s: the run ${id} goes on (follow it with \`npx trace-sync watch ${id}\`)`,
    ]);
    const handle = stack.client.workflow.getHandle(id);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test cleanup');
  }, 120_000);

  it('without --wait, a queue nobody polls is a warning: the run is started for a worker to come', async () => {
    const queue = `nobody-polls-yet-${Date.now()}`;
    const run = await traceSync(['check-connection'], { ...env, TRACE_TASK_QUEUE: queue }, 60_000);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`warning: No worker polls task queue "${queue}"`);
    // stdout is the run's id alone, for `id=$(trace-sync check-connection)`; the sentence is on stderr.
    const id = /Started workflow (\S+) on task queue/.exec(run.stderr)?.[1];
    expect(run.stdout).toBe(`${id}\n`);
    expect((await stack.client.workflow.getHandle(run.stdout.trim()).describe()).status.name).toBe('RUNNING');
    await stack.client.workflow.getHandle(id as string).terminate('test cleanup');
  }, 60_000);

  it('"a run with rejects must not look like a clean one": current details say how many were rejected and where the rejects file is; each batch activity has a summary', async () => {
    const file = path.join(dir, 'rejects-sheet.csv');
    const rows = nativeRows({ prefix: 'REJ', styles: 2, coloursPerStyle: 1, sizesPerColour: 2 }).map((row) =>
      row.externalId === 'REJ-S1-C1-Z2' ? { ...row, name: '' } : row,
    );
    writeFileSync(file, toCsv(rows));
    const run = await traceSync(['plm-import', file, '--wait'], env);
    expect(run.status).toBe(0);
    const id = /Started workflow (\S+)/.exec(run.stderr)?.[1] as string;
    const handle = stack.client.workflow.getHandle(id);
    const result = (await handle.result()) as {
      products: { created: number; rejected: number };
      rejectsFile: string;
    };
    expect(result.products.rejected).toBe(1);

    const described = await handle.describe();
    expect(await described.staticSummary()).toBe('Import PLM sheet rejects-sheet.csv');
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(
      `${result.products.created} created, 0 updated, 0 unchanged, 1 rejected; 1 row rejected — rejects file: ${result.rejectsFile}`,
    );
    expect(described.typedSearchAttributes.get(TraceStatus)).toBe('done-with-rejects');

    const history = await handle.fetchHistory();
    const summaries = (history.events ?? [])
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'applyPlmBatch')
      .map((event) =>
        event.userMetadata?.summary
          ? defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary)
          : undefined,
      );
    expect(summaries.length).toBeGreaterThan(0);
    summaries.forEach((summary, i) => expect(summary).toBe(`apply batch ${i + 1}/${summaries.length}`));
  }, 300_000);

  // A row naming no product (a blank externalId) counts in no product total, yet it is rejected: the rejects file, the
  // result's rejectedRows and TraceStatus say so. The details said "0 rejected" and named no rejects file.
  it('a run whose only rejects are rows naming no product names those rows and the rejects file in its details', async () => {
    const file = path.join(dir, 'keyless-sheet.csv');
    const rows: NativeRow[] = [
      ...nativeRows({ prefix: 'KYL', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 }),
      { externalId: '', parentExternalId: 'KYL-S1-C1', level: 'sku', name: 'No key', dimension: 'XL' },
      { externalId: '', parentExternalId: 'KYL-S1-C1', level: 'sku', name: 'No key', dimension: 'XXL' },
    ];
    writeFileSync(file, toCsv(rows));
    const handle = await stack.client.workflow.start(plmImport, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('keyless'),
      args: [{ file }],
    });
    const result = (await handle.result()) as {
      products: { created: number; rejected: number };
      rejectedRows: number;
      rejectsFile: string | null;
    };
    expect(result).toMatchObject({
      products: { rejected: 0 },
      rejectedRows: 2,
      rejectsFile: expect.any(String),
    });
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('done-with-rejects');
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(
      `${result.products.created} created, 0 updated, 0 unchanged, 0 rejected; 2 rows rejected — rejects file: ${result.rejectsFile}`,
    );
  }, 300_000);

  const tmux = spawnSync('tmux', ['-V']).status === 0;
  (tmux ? it : it.skip)(
    'on a terminal (tmux), the progress bar is one line redrawn in place',
    async () => {
      const file = path.join(dir, 'tty-sheet.csv');
      writeFileSync(file, toCsv(nativeRows({ prefix: 'TTY', ...SHAPE })));
      const session = `trace-sync-bar-${process.pid}`;
      const socket = path.join(dir, 'tmux.sock');
      const done = path.join(dir, 'tty-done');
      const exports = ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TRACE_TASK_QUEUE', 'TRACE_DATA_DIR']
        .map((name) => `${name}='${env[name] ?? ''}'`)
        .join(' ');
      const command = `cd '${repoRoot()}' && env ${exports} '${process.execPath}' bin/trace-sync.cjs plm-import '${file}' --wait; echo "exit=$?" > '${done}'; sleep 30`;
      const tmuxRun = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
      expect(tmuxRun('new-session', '-d', '-s', session, '-x', '120', '-y', '40', command).status).toBe(0);
      try {
        const screens: string[] = [];
        const deadline = Date.now() + 240_000;
        while (Date.now() < deadline) {
          const pane = tmuxRun('capture-pane', '-p', '-J', '-t', session).stdout;
          screens.push(pane);
          if (spawnSync('test', ['-e', done]).status === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
        const barLine = /^(reading sheet|planning|applying|writing rejects)\s.*/;
        const withBar = screens.filter((screen) => screen.split('\n').some((line) => barLine.test(line)));
        expect(withBar.length).toBeGreaterThan(1);
        // In place: never more than one bar line on the screen, always on the line under "Started workflow".
        for (const screen of withBar) {
          const lines = screen.split('\n');
          expect(lines.filter((line) => barLine.test(line))).toHaveLength(1);
          const started = lines.findIndex((line) => line.startsWith('Started workflow'));
          expect({ screen, next: lines[started + 1] }).toEqual({
            screen,
            next: expect.stringMatching(barLine),
          });
        }
        // It moved: the applying bar was drawn with more than one count.
        const counts = new Set(withBar.flatMap((screen) => screen.match(/\d+\/\d+ products/g) ?? []));
        expect(counts.size).toBeGreaterThan(1);
        // And it is gone once the result is printed.
        const last = tmuxRun('capture-pane', '-p', '-J', '-t', session, '-S', '-200').stdout;
        expect(last.split('\n').some((line) => barLine.test(line))).toBe(false);
        expect(last).toContain('"created":');
      } finally {
        tmuxRun('kill-session', '-t', session);
      }
    },
    300_000,
  );
});
