/**
 * Hostile and huge input (issue 17): for the worst files of the bad-input corpus, the time each job's reader takes
 * to its clear error, and the event loop's delay while it reads (p99 and max, `perf_hooks.monitorEventLoopDelay`):
 * the worker's heartbeats, other activities and shutdown all need that loop. Aim: p99 < 200 ms. For contrast, the
 * same heavy workbook read by SheetJS on the main thread (what the readers did before).
 * Run: node bin/run-ts.cjs bench/bad-input.ts [heavyWorkbookRows]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as XLSX from 'xlsx';
import { buildOrders } from '../connectors/erp-orders/orders/build';
import { DEFAULT_PROFILE } from '../connectors/erp-orders/profile';
import { readExportFile } from '../connectors/erp-orders/read';
import { builtinProfile } from '../connectors/plm-import/profiles/builtin';
import { parseProductSheet } from '../connectors/plm-import/profiles/parse-sheet';
import {
  farRightStubs,
  generateCorpus,
  headerBelowStubs,
  heavyWorkbook,
  manyMerges,
  ORDER_HEADER,
  orderLine,
} from '../test/bad-input/corpus';
import { CONTEXT } from '../test/unit/erp/support';

interface Figure {
  file: string;
  job: string;
  ms: number;
  p99: number;
  max: number;
  /** Longest gap between two runs of a 10 ms interval timer: what a heartbeat timer would have suffered. */
  gap: number;
  answer: string;
}

async function measure(file: string, job: string, read: () => Promise<unknown>): Promise<Figure> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let last = performance.now();
  let gap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  let answer: string;
  try {
    await read();
    answer = 'read (no error)';
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    answer = `${code ?? (error as Error).name} (${message.length} chars)`;
  }
  const ms = performance.now() - started;
  // One more turn, so a loop blocked until now records that delay.
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(ticker);
  delay.disable();
  return { file, job, ms, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, gap, answer };
}

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), 'bench-bad-input-'));
  try {
    generateCorpus(dir);
    const heavy = join(dir, `heavy-${rows}.xlsx`);
    writeFileSync(heavy, heavyWorkbook(rows));
    console.log(
      `heavy workbook: ${rows.toLocaleString('en-US')} rows, ${(statSync(heavy).size / 1048576).toFixed(1)} MB zipped`,
    );
    // Small on disk, slow by shape (audit-hostile): each took from 15 s to past the read limit before its fix.
    writeFileSync(join(dir, 'gen-200k-merges.xlsx'), manyMerges(ORDER_HEADER, orderLine('PO-M'), 200_000));
    writeFileSync(
      join(dir, 'gen-200k-xfd-stub-rows.xlsx'),
      farRightStubs(ORDER_HEADER, orderLine('PO-S'), 200_000),
    );
    writeFileSync(
      join(dir, 'gen-header-below-200k-xfd-rows.xlsx'),
      headerBelowStubs(ORDER_HEADER, orderLine('PO-H'), 200_000),
    );
    writeFileSync(
      join(dir, 'gen-40k-rows-distinct-keys.json'),
      `[${Array.from({ length: 40_000 }, (_, r) => `{${Array.from({ length: 50 }, (_, k) => `"k${r}_${k}":1`).join(',')}}`).join(',')}]`,
    );
    const files = [
      heavy,
      ...[
        'gen-200k-merges.xlsx',
        'gen-200k-xfd-stub-rows.xlsx',
        'gen-header-below-200k-xfd-rows.xlsx',
        'gen-40k-rows-distinct-keys.json',
      ].map((name) => join(dir, name)),
      ...[
        'gen-10mb-of-y-comma.csv',
        'gen-one-10mb-line.csv',
        'gen-header-30000-repeated-note.csv',
        'gen-3mb-order-number-line.csv',
        'gen-500k-quoted-line-breaks.csv',
        'gen-1000002-rows.csv',
        'gen-3000-columns.xlsx',
      ].map((name) => join(dir, name)),
    ];
    const profile = builtinProfile('native');
    const figures: Figure[] = [];
    for (const file of files) {
      const name = file.slice(dir.length + 1);
      figures.push(
        await measure(name, 'erp-orders', async () =>
          buildOrders(await readExportFile(file), DEFAULT_PROFILE, CONTEXT),
        ),
      );
      figures.push(
        await measure(name, 'plm-import', () => parseProductSheet(file, { profile, references: {} })),
      );
    }
    // Before issue 17: SheetJS on the main thread.
    figures.push(
      await measure(heavy.slice(dir.length + 1), 'SheetJS on the main thread (before)', async () => {
        XLSX.readFile(heavy, { dense: true, cellFormula: true, sheetStubs: true });
      }),
    );
    const pad = (text: string, width: number) => text.padEnd(width);
    console.log(
      `${pad('file', 36)} ${pad('job', 38)} ${'time ms'.padStart(9)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'gap ms'.padStart(8)}  answer`,
    );
    for (const f of figures) {
      console.log(
        `${pad(f.file, 36)} ${pad(f.job, 38)} ${f.ms.toFixed(0).padStart(9)} ${f.p99.toFixed(0).padStart(8)} ${f.max.toFixed(0).padStart(8)} ${f.gap.toFixed(0).padStart(8)}  ${f.answer}`,
      );
    }
    const ours = figures.filter((f) => !f.job.startsWith('SheetJS'));
    const worst = ours.reduce((a, b) => (b.ms > a.ms ? b : a));
    const worstP99 = Math.max(...ours.map((f) => f.p99));
    const worstGap = Math.max(...ours.map((f) => f.gap));
    const before = figures.find((f) => f.job.startsWith('SheetJS'));
    console.log(
      `\nworst-case file: ${worst.file} (${worst.job}): ${worst.ms.toFixed(0)} ms to a clear error; ` +
        `event-loop delay p99 over all reads ${worstP99.toFixed(0)} ms (aim < 200 ms), longest timer gap ` +
        `${worstGap.toFixed(0)} ms; SheetJS on the main thread: longest timer gap ${before?.gap.toFixed(0) ?? '?'} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
