/**
 * The certificate report's read: every list it shows read whole, and checked for certificates changed while it was
 * read (`readWholeLists`).
 */
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CertificateStatus } from '../connectors/certificate-report/model';
import type { Progress } from '../connectors/staging';
import { readList, type Certificate, type ListRead } from '../connectors/traceability';
import type { CertificatePageFetcher } from './certificate-fetch-journal';

/** Whole reads of every list tried while certificates change under the read. */
const CERTIFICATE_LIST_READS = 3;
/**
 * Reads of one list whose ids are counted together while its `total` stays: a server may answer certificates with
 * equal sort values in another order on each query, each read then meeting some twice and missing others.
 */
const READS_PER_LIST = 8;
const PAGE_SIZE = 100;

interface StatusRead {
  status: CertificateStatus | undefined;
  read: ListRead<Certificate>;
}

const listName = (status: CertificateStatus | undefined) =>
  status ? `certificates with status ${status}` : 'certificates of every status';

/**
 * One list read by offset until the ids read cover its `pagination.total` (spec 01). Spec 03 offers no sort column
 * that is unique (no `id`, no `createdAt`) and promises a stable paging order for equal sort values of GET /orders
 * only: a read may meet a certificate twice and miss another. The ids read are therefore counted across reads while
 * `total` stays (`countAcross`), the latest copy of each kept, and the pages read again only until every certificate
 * counted was met. That count holds only while no certificate leaves the list, which a status list does (a review
 * done): `readWholeLists` checks that none changed while the lists were read. A list whose pages never show a
 * certificate its total counts fails the run, saying so: no report is written short of one.
 */
async function readStatusList(
  status: CertificateStatus | undefined,
  fetchPage: CertificatePageFetcher,
  progress: Progress,
): Promise<StatusRead> {
  const read = await readList(
    (page, limit) => fetchPage({ ...(status ? { status } : {}), order: 'asc', page, limit }),
    {
      limit: PAGE_SIZE,
      keep: 'latest',
      countAcross: true,
      reads: READS_PER_LIST,
      onPage: (_, certificates) => progress({ list: status ?? 'all', certificates }),
    },
  );
  if (read.moved !== undefined) {
    throw ApplicationFailure.nonRetryable(
      `${listName(status)}: the API counts ${read.total} but ${read.reads} reads of its pages listed ` +
        `${read.counted} distinct ones; ${read.total - read.counted} counted certificate(s) were on none of the ` +
        'pages read (the order of certificates with equal sort values may change between queries, but not that ' +
        'often); no report written, so none is short of a certificate: run the report again, and if it fails the ' +
        'same way the API lists fewer certificates than it counts',
      'CertificateListUnsettled',
    );
  }
  return { status, read };
}

/** A certificate as the report compares it: every field the API gave but the `fileUrl`, signed anew on each answer. */
function shownFields(certificate: Certificate): string {
  const entries = Object.entries(certificate).filter(([key]) => key !== 'fileUrl');
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Why the lists read may not hold every certificate as it is now, or undefined. `newest` holds the certificates
 * changed last (`newestChanges`), every one changed since the lists began to be read among them, as they are now: each
 * must be in the lists read exactly so, in the list of its status, or in none when its status is not read. A
 * certificate found in two lists changed status between their reads.
 */
function changedWhileRead(reads: readonly StatusRead[], newest: readonly Certificate[]): string | undefined {
  const read = new Map<string, Certificate>();
  for (const { read: list } of reads) {
    for (const certificate of list.items) {
      const other = read.get(certificate.id);
      if (other)
        return (
          `certificate ${certificate.id} was listed both as ${other.status} and as ${certificate.status} ` +
          '(its status changed while the lists were read)'
        );
      read.set(certificate.id, certificate);
    }
  }
  const statusesRead = new Set(reads.map(({ status }) => status));
  for (const certificate of newest) {
    const listed = statusesRead.has(undefined) || statusesRead.has(certificate.status);
    const found = read.get(certificate.id);
    if (!listed && found)
      return `certificate ${certificate.id} is ${certificate.status} now, read as ${found.status}`;
    if (listed && !found)
      return `certificate ${certificate.id} (${certificate.status}) was in none of the lists read`;
    if (found && shownFields(found) !== shownFields(certificate))
      return `certificate ${certificate.id} changed after it was read`;
  }
  return undefined;
}

/** Pages of the newest changes read once the lists are: 1,000 certificates changed while they were read, at most. */
const CHANGE_PAGES = 10;

/** The newest changes (`sort=updatedAt&order=desc`, every status), from page 1: `page` of them. */
const newestPage = (fetchPage: CertificatePageFetcher, page: number) =>
  fetchPage({ order: 'desc', page, limit: PAGE_SIZE });

type NewestChanges =
  | { settled: true; items: Certificate[]; first: Certificate[] }
  | { settled: false; change: string; first: Certificate[] };

/**
 * The certificates changed last, as they are now, down to every one changed since `before` was read (page 1 of them,
 * read before the lists). A certificate's `updatedAt` orders them but is not in the list's answer (spec 03,
 * Certificate), so no time tells where the changes made while the lists were read end: `before` does. Every
 * certificate changed since comes first, then the ones of `before` not changed since, in its order. So pages are read
 * until one of `before` is met as it was then, with every one ahead of it in `before` met earlier, or followed by one
 * after it in `before`, as it was too (one ahead of it may have left the list: deleted, or its supplier out of the
 * network). One page on a quiet night. A certificate that changed and changed back, or changed no field the API
 * shows, while the lists were read is taken for unchanged. Bounded by `CHANGE_PAGES`: beyond them the lists are taken
 * to have changed.
 */
async function newestChanges(
  before: readonly Certificate[],
  fetchPage: CertificatePageFetcher,
): Promise<NewestChanges> {
  const position = new Map(before.map((certificate, at) => [certificate.id, at]));
  /** Where `certificate` was in `before` when it is as it was then. */
  const unchangedAt = (certificate: Certificate): number | undefined => {
    const at = position.get(certificate.id);
    return at !== undefined && shownFields(certificate) === shownFields(before[at]!) ? at : undefined;
  };
  const met = new Set<string>();
  let firstUnmet = 0;
  const items: Certificate[] = [];
  let first: Certificate[] = [];
  for (let page = 1; page <= CHANGE_PAGES; page++) {
    const answer = await newestPage(fetchPage, page);
    if (page === 1) first = answer.items;
    let unchangedMet = false;
    for (const [index, certificate] of answer.items.entries()) {
      const at = unchangedAt(certificate);
      const next = answer.items[index + 1];
      const nextAt = next && unchangedAt(next);
      if (at !== undefined && (at <= firstUnmet || (nextAt !== undefined && nextAt > at)))
        unchangedMet = true;
      met.add(certificate.id);
      while (firstUnmet < before.length && met.has(before[firstUnmet]!.id)) firstUnmet++;
      items.push(certificate);
    }
    if (unchangedMet || page >= answer.pagination.totalPages || answer.items.length < PAGE_SIZE)
      return { settled: true, items, first };
  }
  return {
    settled: false,
    change: `more than ${CHANGE_PAGES * PAGE_SIZE} certificates changed while the lists were read`,
    first,
  };
}

/**
 * Reads every list whole, each certificate once, as it is once they are read. A certificate whose status changes
 * while the lists are read moves from one list to another, maybe onto a page already read; and a list that lost one
 * certificate and gained another keeps its `total` while one of its certificates slides onto a page already read, the
 * one that left still counted. So the newest changes are asked for before the lists are read (one call) and after
 * (`newestChanges`: one call unless a page or more changed meanwhile), and every certificate changed meanwhile is
 * checked against the lists (`changedWhileRead`): when one changed, all lists are read again (the newest changes
 * read after them serving as the next read's `before`), up to `CERTIFICATE_LIST_READS` times; then the run fails
 * saying what kept changing, and no report is written. A quiet night costs the lists' pages and two calls. It asks
 * the same queries in the same order for the same answers: an attempt after a killed one replays the answers it got
 * (`openFetchJournal`, which says what a resumed read may miss).
 */
export async function readWholeLists(
  lists: ReadonlyArray<CertificateStatus | undefined>,
  fetchPage: CertificatePageFetcher,
  progress: Progress,
): Promise<Certificate[]> {
  let change: string | undefined;
  let before = (await newestPage(fetchPage, 1)).items;
  for (let attempt = 1; attempt <= CERTIFICATE_LIST_READS; attempt++) {
    const reads: StatusRead[] = [];
    for (const status of lists) reads.push(await readStatusList(status, fetchPage, progress));
    const newest = await newestChanges(before, fetchPage);
    change = newest.settled ? changedWhileRead(reads, newest.items) : newest.change;
    if (change === undefined) return reads.flatMap(({ read }) => read.items);
    before = newest.first;
    log.warn('Certificates changed while the lists were read', {
      attempt,
      of: CERTIFICATE_LIST_READS,
      change,
    });
  }
  throw ApplicationFailure.nonRetryable(
    `${change}, in each of ${CERTIFICATE_LIST_READS} reads in a row; no report written, so none is short of ` +
      'a certificate or shows one as it was: run the report again once certificates are not being reviewed',
    'CertificateListUnsettled',
  );
}
