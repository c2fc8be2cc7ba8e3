import { z } from 'zod';
import { readStoredJson, type StagingStore } from '../connectors/staging';
import type { CertificateStatus } from '../connectors/certificate-report/model';
import {
  certificateSchema,
  certificateStatusSchema,
  type Certificate,
  type Page,
} from '../connectors/traceability';
import { paginationSchema } from '../connectors/traceability/envelope';

export interface CertificatePageQuery {
  status?: CertificateStatus;
  order: 'asc' | 'desc';
  page: number;
  limit: number;
}

export type CertificatePageFetcher = (query: CertificatePageQuery) => Promise<Page<Certificate>>;

const journalEntrySchema = z.object({
  query: z.object({
    status: certificateStatusSchema.optional(),
    order: z.enum(['asc', 'desc']),
    page: z.number().int(),
    limit: z.number().int(),
  }),
  answer: z.object({ items: z.array(certificateSchema), pagination: paginationSchema }),
});

/** What the fetch heartbeats: where its journal is and how many calls it holds (never the certificates). */
const journalDetailsSchema = z.looseObject({ journal: z.string().min(1), calls: z.number().int().min(0) });
export type JournalDetails = z.infer<typeof journalDetailsSchema>;

const sameQuery = (a: CertificatePageQuery, b: CertificatePageQuery) =>
  a.status === b.status && a.order === b.order && a.page === b.page && a.limit === b.limit;

/** A page as the journal keeps it and the read is given it, replayed or not: without the signed `fileUrl`. */
function kept(answer: Page<Certificate>): Page<Certificate> {
  return {
    items: answer.items.map(({ fileUrl: _signed, ...certificate }) => certificate),
    pagination: answer.pagination,
  };
}

export interface FetchJournal {
  fetchPage: CertificatePageFetcher;
  /** The details to heartbeat: the journal's key and its calls so far. */
  details(): JournalDetails;
  /** Calls whose answers the read used: replayed ones (an earlier attempt spent them) and this attempt's. */
  readonly calls: number;
  /** Answers taken from an earlier attempt's journal. */
  readonly replayed: number;
}

/**
 * The fetch's calls and their answers, in the order asked, one staged file each (`<folder>/<attempt>/<n>.json`), so
 * an attempt after a killed one reads on where it stopped instead of from page 1: the read (`readWholeLists`) asks
 * the same queries in the same order for the same answers, so its first calls are answered from the journal, the
 * first of them the newest changes read before the lists, the marker the changed-while-read check compares against.
 * It is the killed attempt's, so every change since that attempt began (while it ran, while no worker ran, while this
 * one runs) is checked for as in a read never killed. What a resumed read may miss is what any read may: a
 * certificate changed and changed back, or changed in no field the API shows, since the marker (a stretch now
 * including the time no worker ran) is taken for unchanged; and more changes piling up meanwhile than the check reads
 * make the lists be read again.
 *
 * An attempt resumes only the journal the heartbeat details of the one before name (`previous`); its calls are
 * replayed while their files are there (the heartbeated count lags behind them, heartbeats being throttled; each file
 * is written whole or not at all), then this attempt appends to it. Otherwise, or when a journaled query is not the
 * one asked (the code changed between attempts), the folder is dropped and this attempt starts its own journal, so no
 * answer read before a marker is ever taken with it. An attempt told by a heartbeat's answer that it no longer runs
 * (timed out, cancelled: `stop`) writes no more; one that has not heard so yet (its event loop held past the
 * heartbeat timeout) could still append to the journal its successor resumes: the gap left open.
 */
export async function openFetchJournal(options: {
  staging: StagingStore;
  folder: string;
  attempt: number;
  previous: unknown;
  live: CertificatePageFetcher;
  stop: AbortSignal;
}): Promise<FetchJournal> {
  const { staging, folder, live, stop } = options;
  const own = `${folder}/${options.attempt}`;
  const named = journalDetailsSchema.safeParse(options.previous).data?.journal;
  const resumed =
    named !== undefined && named.startsWith(`${folder}/`) && /^\d+$/.test(named.slice(folder.length + 1));
  let key = resumed ? named : own;
  let replaying = resumed;
  if (!resumed) await staging.remove(folder);
  let calls = 0;
  let replayed = 0;

  const fetchPage: CertificatePageFetcher = async (query) => {
    const call = calls + 1;
    if (replaying) {
      const entry = await readStoredJson(staging.pathOf(`${key}/${call}.json`), journalEntrySchema).then(
        (found) => found ?? 'missing',
        () => 'unreadable' as const,
      );
      if (typeof entry === 'object' && sameQuery(entry.query, query)) {
        calls = call;
        replayed += 1;
        return entry.answer;
      }
      replaying = false;
      if (entry !== 'missing' || call === 1) {
        await staging.remove(folder);
        key = own;
      }
    }
    const answer = kept(await live(query));
    stop.throwIfAborted();
    await staging.putJson(`${key}/${call}.json`, { query, answer });
    calls = call;
    return answer;
  };

  return {
    fetchPage,
    details: () => ({ journal: key, calls }),
    get calls() {
      return calls;
    },
    get replayed() {
      return replayed;
    },
  };
}
