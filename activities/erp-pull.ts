import { mkdir, readFile } from 'node:fs/promises';
import { publishFile, refreshFile, writeFileAtomically } from '../connectors/storage';
import { join } from 'node:path';
import { heartbeat, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  advanceMark,
  highWaterMarkSchema,
  INITIAL_MARK,
  ordersSince,
  ordersToCsv,
  ordersToNdjson,
  type HighWaterMark,
} from '../connectors/erp-pull';
import type { ExistingOrder } from '../connectors/erp-orders';
import { IncrementalSync, type Order } from '../connectors/traceability';
import { ApiCalls, toActivityFailure } from './batch-kit';
import { listedLines, toExisting } from './erp-orders/snapshot';
import type { ActivityDeps } from './deps';

export const ORDERS_EXPORT_FOLDER = join('exports', 'orders');
export const MARK_FILE = 'high-water-mark.json';

export interface PullOrdersResult {
  /** Orders changed since the previous pull (0: nothing was written). */
  orders: number;
  files: { ndjson: string; csv: string } | null;
  markFile: string;
  from: HighWaterMark;
  to: HighWaterMark;
  apiCalls: number;
  durationMs: number;
}

async function readMark(path: string): Promise<HighWaterMark> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return INITIAL_MARK;
  }
  let parsed;
  try {
    parsed = highWaterMarkSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw ApplicationFailure.nonRetryable(
      `the high-water mark ${path} is not readable: restore it, or delete it to export every order again`,
      'CorruptHighWaterMark',
    );
  }
  return parsed.data;
}

/** Lines of the changed orders: every line listed (100 a page) when cheaper than one GET per order. */
async function withLines(api: ApiCalls, orders: readonly Order[]): Promise<ExistingOrder[]> {
  const byOrder = await listedLines(api, orders, 2);
  const result: ExistingOrder[] = [];
  for (const order of orders) {
    const listed = byOrder?.get(order.id) ?? [];
    if (order.lineCount === 0 || (byOrder !== undefined && listed.length === order.lineCount)) {
      result.push(toExisting(order, listed));
      continue;
    }
    try {
      // The GET may show a newer version; the mark still follows the listed one, so nothing in between is skipped.
      result.push(toExisting(await api.one(() => api.client.orders.get(order.id))));
    } catch (error) {
      const gone = (error as { statusCode?: number }).statusCode === 404;
      if (!gone) throw error;
    }
  }
  return result;
}

const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[:.]/g, '-');

export function createErpPullActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  const folder = join(deps.config.dataDir, ORDERS_EXPORT_FOLDER);
  const markFile = join(folder, MARK_FILE);
  return {
    /**
     * Orders changed on the platform since the stored high-water mark, as NDJSON and CSV in
     * `<dataDir>/exports/orders/`. The mark moves (atomically) only after both files are complete; a run that dies
     * in between rewrites the same two files next time, named after the mark they start from.
     */
    async pullPlatformOrdersSinceMark(): Promise<PullOrdersResult> {
      const started = Date.now();
      const api = new ApiCalls(deps.client);
      try {
        await refreshFile(markFile); // the run-data store's mark, when another worker moved it
        const from = await readMark(markFile);
        const sync = new IncrementalSync(
          (window) => api.one(() => deps.client.orders.list({ ...window, sort: 'updatedAt', order: 'ASC' })),
          { highWaterMarkMs: from.updatedAtMs, idsAtHighWaterMark: from.idsAtMark },
        );
        const listed: Order[] = [];
        for await (const order of sync) {
          listed.push(order);
          if (listed.length % 500 === 0) heartbeat({ orders: listed.length });
        }
        const changed = ordersSince(
          from,
          listed.map((order) => ({ ...order, updatedAt: order.updatedAt ?? null })),
        );
        if (changed.length === 0) {
          return {
            orders: 0,
            files: null,
            markFile,
            from,
            to: from,
            apiCalls: api.count,
            durationMs: Date.now() - started,
          };
        }
        const exported = await withLines(api, changed);
        const to = advanceMark(from, changed);
        await mkdir(folder, { recursive: true });
        const base = join(folder, `orders-updated-after-${stamp(from.updatedAtMs)}`);
        const files = { ndjson: `${base}.ndjson`, csv: `${base}.csv` };
        await writeFileAtomically(files.ndjson, ordersToNdjson(exported));
        await writeFileAtomically(files.csv, ordersToCsv(exported));
        await writeFileAtomically(markFile, `${JSON.stringify(to, null, 2)}\n`);
        for (const file of [files.ndjson, files.csv, markFile]) await publishFile(file);
        log.info('Platform orders pulled', {
          orders: exported.length,
          apiCalls: api.count,
          mark: to.updatedAtMs,
        });
        return {
          orders: exported.length,
          files,
          markFile,
          from,
          to,
          apiCalls: api.count,
          durationMs: Date.now() - started,
        };
      } catch (error) {
        throw toActivityFailure(error);
      }
    },
  };
}
