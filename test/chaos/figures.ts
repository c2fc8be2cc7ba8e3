import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { PlmImportResult } from '../../activities/plm-import';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import type { HarnessInfo } from '../harness/harness-info';
import type { Discrepancies } from './compare';
import type { RetriedActivity } from './stall-report';

/** What a chaos run measured: printed as a table, kept as JSON. */
export interface ChaosFigures {
  label: string;
  seed: number;
  plmRows: number;
  orders: number;
  orderLines: number;
  kills: number;
  workerStarts: number;
  killPoints: number[];
  killOn: 'writes' | 'calls';
  apiTimeoutMs: number;
  faults: {
    serverErrors: number;
    burst429: number;
    droppedAfterCommit: number;
    slowReadsBeyondTimeout: number;
    slowWritesCommittedLate: number;
    slowAnswersAfterCommit: number;
    slowClientGaveUp: number;
  };
  phases: Record<string, number>;
  outcome: Omit<Discrepancies, 'examples'> & { examples: string[] };
  apiCalls: {
    clean: number;
    chaos: number;
    extra: number;
    extraPct: number;
    cleanWrites: number;
    chaosWrites: number;
  };
  jobs: {
    plm: {
      status: string;
      created?: number;
      updated?: number;
      unchanged?: number;
      rejected?: number;
      recovered?: number;
    };
    erp: {
      status: string;
      created?: number;
      patched?: number;
      unchanged?: number;
      rejected?: number;
      recoveries?: PushErpOrdersResult['recoveries'];
    };
  };
  unexpectedWorkerExits: string[];
  /** Activities that took more than one attempt: where the kills and failures cost each job its time. */
  retried: { plm: RetriedActivity[]; erp: RetriedActivity[] };
  durationsMs: { clean: number; chaos: number };
  cleanOutcome: number;
  figuresFile: string;
}

export function plmFigures(result: PlmImportResult): ChaosFigures['jobs']['plm'] {
  const { created, updated, unchanged, rejected } = result.products;
  return { status: 'completed', created, updated, unchanged, rejected, recovered: result.recovered };
}

export function erpFigures(result: PushErpOrdersResult): ChaosFigures['jobs']['erp'] {
  const { created, patched, unchanged, rejected } = result.orders;
  return { status: 'completed', created, patched, unchanged, rejected, recoveries: result.recoveries };
}

/** `<temp>/chaos-figures.json` (one entry per label, the latest run winning) and a compact table on stdout. */
export function writeFigures(figures: ChaosFigures, harness: HarnessInfo): void {
  const file = figures.figuresFile;
  let all: Record<string, unknown> = {};
  try {
    all = z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    all = {};
  }
  all[figures.label] = figures;
  writeFileSync(file, JSON.stringify(all, null, 2));
  // A copy beside the run's logs, which outlive the run's temp folder.
  writeFileSync(
    path.join(harness.logDir, `chaos-${figures.label}-figures.json`),
    JSON.stringify(figures, null, 2),
  );
  process.stdout.write(formatFigures(figures));
}

/** `plm applyPlmBatch ×2 (24.1 s: activity Heartbeat timeout)`, one per retried activity. */
function formatRetried(retried: ChaosFigures['retried']): string {
  const all = Object.entries(retried).flatMap(([job, activities]) =>
    activities.map((a) => `${job} ${a.activity} ×${a.attempts} (${a.seconds} s: ${a.lastFailure})`),
  );
  return all.length === 0 ? 'none' : all.join(' | ');
}

export function formatFigures(f: ChaosFigures): string {
  const o = f.outcome;
  const rows: [string, string][] = [
    [
      'run',
      `${f.label}, seed ${f.seed}: ${f.plmRows} PLM rows + ${f.orders} orders (${f.orderLines} lines) at once`,
    ],
    [
      'kills',
      `${f.kills} SIGKILLs, ${f.workerStarts} worker starts (kill points on ${f.killOn}: ${f.killPoints.join(', ')})`,
    ],
    [
      'faults injected',
      `5xx ${f.faults.serverErrors} | 429 ${f.faults.burst429} | dropped after commit ${f.faults.droppedAfterCommit} | ` +
        `slow reads > ${f.apiTimeoutMs} ms ${f.faults.slowReadsBeyondTimeout} | slow writes committed late ${f.faults.slowWritesCommittedLate} | ` +
        `slow answers after commit ${f.faults.slowAnswersAfterCommit} (client gave up on ${f.faults.slowClientGaveUp})`,
    ],
    [
      'fault phases',
      Object.entries(f.phases)
        .map(([name, n]) => `${name} ×${n}`)
        .join(', '),
    ],
    [
      'duplicates',
      `${o.duplicateProducts + o.duplicateOrders} (products ${o.duplicateProducts}, orders ${o.duplicateOrders})`,
    ],
    ['losses', `${o.lostProducts + o.lostOrders} (products ${o.lostProducts}, orders ${o.lostOrders})`],
    [
      'half-applied',
      `${o.halfAppliedOrders} orders, ${o.wrongProducts} wrong products, ${o.unexpectedProducts + o.unexpectedOrders} unexpected`,
    ],
    [
      'API calls',
      `clean ${f.apiCalls.clean} | chaos ${f.apiCalls.chaos} | extra for recovery ${f.apiCalls.extra} (${f.apiCalls.extraPct}%) | ` +
        `writes clean ${f.apiCalls.cleanWrites}, chaos ${f.apiCalls.chaosWrites}`,
    ],
    ['plm job', JSON.stringify(f.jobs.plm)],
    ['erp job', JSON.stringify(f.jobs.erp)],
    ['retried', formatRetried(f.retried)],
    [
      'time',
      `clean ${(f.durationsMs.clean / 1000).toFixed(1)} s, chaos ${(f.durationsMs.chaos / 1000).toFixed(1)} s`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  if (o.examples.length > 0) lines.push(`  examples: ${o.examples.slice(0, 10).join('\n            ')}`);
  lines.push(`  figures: ${f.figuresFile}`);
  return `\nchaos figures\n${lines.join('\n')}\n`;
}
