import {
  cutToCell,
  escapeHtml,
  htmlDocument,
  htmlTable,
  tableMatrix,
  toCsv,
  toXlsx,
  type Column,
  type Table,
} from '../reports';
import {
  bucketLabel,
  bucketOrder,
  countBy,
  EXPIRED,
  NO_EXPIRATION_DATE,
  NOT_EXPIRING,
  supplierName,
  UNREADABLE_EXPIRATION_DATE,
  withinBucket,
  type BucketId,
  type ClassifiedCertificate,
  type ExpiryChanges,
} from './model';
import { counted } from '../counted';

export interface SupplierSummary {
  companyId: string;
  companyName: string;
  total: number;
  /** Expired since the previous report. */
  newlyExpired: number;
  perBucket: Record<BucketId, number>;
}

export interface ExpirySummary {
  asOf: string;
  /** The zone every date of the report is read in. */
  timeZone: string;
  thresholdsDays: number[];
  includedStatuses: string[] | 'all but DRAFT and REJECTED';
  total: number;
  perBucket: Record<BucketId, number>;
  /** The label of each bucket, with its exact range of days ("Expiring in 31–60 days"). */
  bucketLabels: Record<BucketId, string>;
  byType: Record<string, number>;
  /** Most urgent first: newly expired, then each threshold from the nearest, then expired; then by name and id. */
  bySupplier: SupplierSummary[];
  changes: { previousAsOf: string | null; newlyExpired: number; newlyExpiring: number };
}

/**
 * A text the API gave, as every format of the report shows it: cut to what a spreadsheet cell holds (`cutToCell`),
 * so the xlsx, csv and html rows say the same.
 */
const given = (text: string | null): string | null => (text === null ? null : cutToCell(text));

const certificateColumns: Column<ClassifiedCertificate>[] = [
  { header: 'Days to expiry', value: (c) => c.daysToExpiry, kind: 'number' },
  { header: 'Expires on', value: (c) => c.expiresOn, kind: 'date' },
  { header: 'Supplier', value: (c) => given(supplierName(c)) },
  { header: 'Certificate', value: (c) => given(c.name) },
  { header: 'Type', value: (c) => c.type },
  { header: 'Status', value: (c) => c.status },
  { header: 'Document number', value: (c) => given(c.documentNumber) },
  { header: 'Licence number', value: (c) => given(c.licenseNumber) },
  { header: 'Issued by', value: (c) => given(c.issuedBy) },
  // The supplier is its id (GET /certificates `companyId`, exact); two suppliers may share a name.
  { header: 'Supplier id', value: (c) => given(c.companyId) },
  { header: 'Certificate id', value: (c) => given(c.id) },
];

/** The value the API gave, where it could not be read as a date: the unreadable group and the csv show it. */
const givenColumn: Column<ClassifiedCertificate> = {
  header: 'Expiration date as given',
  value: (c) => (c.bucket === UNREADABLE_EXPIRATION_DATE ? given(c.expirationDate) : null),
};
const unreadableColumns = certificateColumns.map((column) =>
  column.header === 'Expires on' ? givenColumn : column,
);
/** The csv's columns: every certificate column, and the unreadable value before the id (which stays last). */
const csvColumns = [...certificateColumns.slice(0, -1), givenColumn, ...certificateColumns.slice(-1)];

/** Soonest first: the fewest days from the as-of date, whichever side of it (just expired, expiring tomorrow). */
function bySoonest(a: ClassifiedCertificate, b: ClassifiedCertificate): number {
  const distance = (c: ClassifiedCertificate) =>
    c.daysToExpiry === null ? Number.MAX_SAFE_INTEGER : Math.abs(c.daysToExpiry);
  return (
    distance(a) - distance(b) || supplierName(a).localeCompare(supplierName(b)) || a.id.localeCompare(b.id)
  );
}

/** Most urgent first: newly expired, then each threshold from the nearest, then expired; then by name and id. */
function compareUrgency({ thresholdsDays }: { thresholdsDays: readonly number[] }) {
  const urgency = (supplier: SupplierSummary) => [
    supplier.newlyExpired,
    ...thresholdsDays.map((days) => supplier.perBucket[withinBucket(days)] ?? 0),
    supplier.perBucket[EXPIRED] ?? 0,
  ];
  return (a: SupplierSummary, b: SupplierSummary): number => {
    const [left, right] = [urgency(a), urgency(b)];
    const diff = right.map((value, i) => value - (left[i] ?? 0)).find((value) => value !== 0);
    return diff ?? (a.companyName.localeCompare(b.companyName) || a.companyId.localeCompare(b.companyId));
  };
}

export function summarise(
  classified: readonly ClassifiedCertificate[],
  changes: ExpiryChanges,
  options: { asOf: string; timeZone?: string; thresholdsDays: number[]; includeStatuses?: string[] },
): ExpirySummary {
  const buckets = bucketOrder(options.thresholdsDays);
  const zero = () => Object.fromEntries(buckets.map((bucket) => [bucket, 0])) as Record<BucketId, number>;
  const perBucket = { ...zero(), ...countBy(classified, (c) => c.bucket) };
  const newlyExpired = new Set(changes.newlyExpired.map((c) => c.id));
  const suppliers = new Map<string, SupplierSummary>();
  for (const certificate of classified) {
    const entry = suppliers.get(certificate.companyId) ?? {
      companyId: certificate.companyId,
      companyName: supplierName(certificate),
      total: 0,
      newlyExpired: 0,
      perBucket: zero(),
    };
    entry.total += 1;
    if (newlyExpired.has(certificate.id)) entry.newlyExpired += 1;
    entry.perBucket[certificate.bucket] = (entry.perBucket[certificate.bucket] ?? 0) + 1;
    suppliers.set(certificate.companyId, entry);
  }
  return {
    asOf: options.asOf,
    timeZone: options.timeZone ?? 'UTC',
    thresholdsDays: options.thresholdsDays,
    includedStatuses: options.includeStatuses ?? 'all but DRAFT and REJECTED',
    total: classified.length,
    perBucket,
    bucketLabels: Object.fromEntries(
      buckets.map((bucket) => [bucket, bucketLabel(bucket, options.thresholdsDays)]),
    ),
    byType: countBy(classified, (c) => c.type),
    bySupplier: [...suppliers.values()].sort(compareUrgency(options)),
    changes: {
      previousAsOf: changes.previousAsOf,
      newlyExpired: changes.newlyExpired.length,
      newlyExpiring: changes.newlyExpiring.length,
    },
  };
}

const label = (summary: ExpirySummary, bucket: BucketId) =>
  summary.bucketLabels[bucket] ?? bucketLabel(bucket, summary.thresholdsDays);

function bucketTables(
  classified: readonly ClassifiedCertificate[],
  summary: ExpirySummary,
): Table<ClassifiedCertificate>[] {
  return bucketOrder(summary.thresholdsDays).map((bucket) => ({
    name: label(summary, bucket),
    columns: bucket === UNREADABLE_EXPIRATION_DATE ? unreadableColumns : certificateColumns,
    rows: classified.filter((c) => c.bucket === bucket).sort(bySoonest),
  }));
}

function changeTables(changes: ExpiryChanges): Table<ClassifiedCertificate>[] {
  return [
    { name: 'Newly expired', columns: certificateColumns, rows: [...changes.newlyExpired].sort(bySoonest) },
    { name: 'Newly expiring', columns: certificateColumns, rows: [...changes.newlyExpiring].sort(bySoonest) },
  ];
}

type SummaryRow = { label: string; value: string | number };

function summaryTable(summary: ExpirySummary): Table<SummaryRow> {
  const rows: SummaryRow[] = [
    { label: 'As of', value: summary.asOf },
    { label: 'Time zone', value: summary.timeZone },
    { label: 'Certificates in report', value: summary.total },
    ...bucketOrder(summary.thresholdsDays).map((bucket) => ({
      label: label(summary, bucket),
      value: summary.perBucket[bucket] ?? 0,
    })),
    { label: 'Previous report', value: summary.changes.previousAsOf ?? 'none' },
    { label: 'Newly expired since previous report', value: summary.changes.newlyExpired },
    { label: 'Newly expiring since previous report', value: summary.changes.newlyExpiring },
  ];
  return {
    name: 'Summary',
    columns: [
      { header: 'Item', value: (r) => r.label },
      { header: 'Value', value: (r) => r.value },
    ],
    rows,
  };
}

/** Short column titles for the supplier table: the range alone ("31–60 days"), so the table fits a screen. */
function shortLabel(summary: ExpirySummary, bucket: BucketId): string {
  return label(summary, bucket)
    .replace(/^Expiring in /, '')
    .replace(/^Expiring after /, 'After ');
}

/** Columns in order of urgency: newly expired, each threshold from the nearest, expired, later, undated, unreadable. */
function supplierTable(summary: ExpirySummary): Table<SupplierSummary> {
  const count = (bucket: BucketId): Column<SupplierSummary> => ({
    header: shortLabel(summary, bucket),
    value: (s) => s.perBucket[bucket] ?? 0,
    kind: 'number',
  });
  return {
    name: 'By supplier',
    columns: [
      { header: 'Supplier', value: (s) => given(s.companyName) },
      { header: 'Supplier id', value: (s) => given(s.companyId) },
      { header: 'Newly expired', value: (s) => s.newlyExpired, kind: 'number' },
      ...summary.thresholdsDays.map((days) => count(withinBucket(days))),
      count(EXPIRED),
      count(NOT_EXPIRING),
      count(NO_EXPIRATION_DATE),
      count(UNREADABLE_EXPIRATION_DATE),
      { header: 'Total', value: (s) => s.total, kind: 'number' },
    ],
    rows: summary.bySupplier,
  };
}

export function renderXlsx(
  classified: readonly ClassifiedCertificate[],
  changes: ExpiryChanges,
  summary: ExpirySummary,
): Buffer {
  return toXlsx([
    tableMatrix(summaryTable(summary)),
    ...changeTables(changes).map(tableMatrix),
    ...bucketTables(classified, summary).map(tableMatrix),
    tableMatrix(supplierTable(summary)),
  ]);
}

/** One row per certificate, with its bucket and whether it changed since the previous report; changes first. */
export function renderCsv(
  classified: readonly ClassifiedCertificate[],
  changes: ExpiryChanges,
  summary?: ExpirySummary,
): string {
  const change = new Map<string, string>();
  for (const c of changes.newlyExpired) change.set(c.id, 'newly expired');
  for (const c of changes.newlyExpiring) change.set(c.id, 'newly expiring');
  const rows = [...classified].sort((a, b) => Number(change.has(b.id)) - Number(change.has(a.id)));
  const thresholds = summary?.thresholdsDays ?? [];
  return toCsv({
    name: 'Certificates',
    columns: [
      { header: 'Bucket', value: (c: ClassifiedCertificate) => bucketLabel(c.bucket, thresholds) },
      { header: 'Change since previous report', value: (c: ClassifiedCertificate) => change.get(c.id) ?? '' },
      ...csvColumns,
    ],
    rows,
  });
}

/** Anchor id of a bucket's html table: `bucket-within_30`, `bucket-expired`, ... */
const bucketAnchor = (bucket: BucketId) => `bucket-${bucket}`;

const REPORT_EXTRA_STYLE = `
body { margin: 1.25rem 2rem; }
header h1 { margin: 0 0 0.25rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
.cards { display: flex; gap: 0.75rem; flex-wrap: wrap; margin: 0.75rem 0; }
.cards.secondary .card { padding: 0.5rem 0.75rem; min-width: 7rem; }
.cards.secondary .card strong { font-size: 1.2rem; }
a.card { color: inherit; text-decoration: none; }
a.card:hover, a.card:focus { outline: 2px solid #334e68; }
.card span { display: block; white-space: nowrap; }
.card small { display: block; color: #52606d; white-space: nowrap; }
.card.critical { background: #c81e1e; border-color: #9b1c1c; color: #fff; }
.card.critical small { color: #fde8e8; }
.card.warning { background: #fff4ce; border-color: #e0a800; }
.card.action { min-width: 14rem; }
.card.action strong { font-size: 2.2rem; }
.action-tables { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; align-items: start; }
.action-tables table { margin-top: 0; font-size: 0.85rem; }
table.critical caption { color: #c81e1e; }
table.suppliers { width: auto; }
table.suppliers td:first-child { white-space: nowrap; }
table.warning caption { color: #8d6200; }
`;

/** The short table of an action card: the columns someone on call needs first. */
const actionColumns: Column<ClassifiedCertificate>[] = [
  { header: 'Days', value: (c) => c.daysToExpiry, kind: 'number' },
  { header: 'Expires on', value: (c) => c.expiresOn, kind: 'date' },
  { header: 'Supplier', value: (c) => given(supplierName(c)) },
  { header: 'Certificate', value: (c) => given(c.name) },
  { header: 'Status', value: (c) => c.status },
];

function card(options: {
  href: string;
  count: number;
  title: string;
  note?: string;
  className?: string;
  id?: string;
}): string {
  const id = options.id ? ` id="${escapeHtml(options.id)}"` : '';
  const note = options.note ? `<small>${escapeHtml(options.note)}</small>` : '';
  return `<a class="card${options.className ? ` ${options.className}` : ''}"${id} href="#${escapeHtml(options.href)}"><strong>${options.count}</strong><span>${escapeHtml(options.title)}</span>${note}</a>`;
}

/**
 * The page opens with what needs action: the newly expired (red) and the certificates expiring within the first
 * threshold, each a card linking to its table, both tables side by side, soonest first. Then the suppliers by
 * urgency, the later buckets, and last the long list of every expired certificate.
 */
export function renderHtml(
  classified: readonly ClassifiedCertificate[],
  changes: ExpiryChanges,
  summary: ExpirySummary,
): string {
  const first = summary.thresholdsDays[0] ?? 30;
  const soonBucket = withinBucket(first);
  const tables = new Map(
    bucketTables(classified, summary).map((table, index) => [
      bucketOrder(summary.thresholdsDays)[index] ?? '',
      table,
    ]),
  );
  const [newlyExpiredTable] = changeTables(changes);
  const soonTable = tables.get(soonBucket);
  const soonest = soonTable?.rows[0];
  const previous = summary.changes.previousAsOf
    ? `compared with the report of ${summary.changes.previousAsOf}`
    : 'no earlier report to compare with';

  const actionCards = [
    card({
      id: 'card-newly-expired',
      href: 'newly-expired',
      count: summary.changes.newlyExpired,
      title: 'Newly expired',
      note: summary.changes.previousAsOf ? `since ${summary.changes.previousAsOf}` : 'no earlier report',
      className: `action${summary.changes.newlyExpired > 0 ? ' critical' : ''}`,
    }),
    card({
      id: `card-${soonBucket}`,
      href: bucketAnchor(soonBucket),
      count: summary.perBucket[soonBucket] ?? 0,
      title: label(summary, soonBucket),
      note: soonest?.expiresOn
        ? `soonest ${soonest.expiresOn} (${counted(soonest.daysToExpiry ?? 0, 'day')})`
        : 'none',
      className: 'action warning',
    }),
  ].join('');
  const laterCards = bucketOrder(summary.thresholdsDays)
    .filter((bucket) => bucket !== soonBucket)
    .map((bucket) =>
      card({
        href: bucketAnchor(bucket),
        count: summary.perBucket[bucket] ?? 0,
        title: bucket === EXPIRED ? 'Expired (all)' : label(summary, bucket),
      }),
    )
    .join('');

  const later = bucketOrder(summary.thresholdsDays).filter(
    (bucket) => bucket !== soonBucket && bucket !== EXPIRED,
  );
  const order = [
    ...later.filter(
      (b) => b !== NOT_EXPIRING && b !== NO_EXPIRATION_DATE && b !== UNREADABLE_EXPIRATION_DATE,
    ),
    NOT_EXPIRING,
    NO_EXPIRATION_DATE,
    UNREADABLE_EXPIRATION_DATE,
  ];
  const body = [
    `<header><h1>Certificate expiry report ${escapeHtml(summary.asOf)}</h1>`,
    `<p class="meta">As of <span class="date">${escapeHtml(summary.asOf)}</span> in ${escapeHtml(summary.timeZone)} · ${summary.total} certificates · ${escapeHtml(previous)} · days to expiry count calendar days in ${escapeHtml(summary.timeZone)}; 0 = expires that day.</p></header>`,
    `<section aria-label="Needs action"><div class="cards">${actionCards}</div>`,
    `<div class="action-tables">`,
    htmlTable(
      { ...newlyExpiredTable!, columns: actionColumns },
      { id: 'newly-expired', emptyText: 'Nothing newly expired', className: 'critical' },
    ),
    htmlTable(
      { ...(soonTable ?? { name: label(summary, soonBucket), rows: [] }), columns: actionColumns },
      {
        id: bucketAnchor(soonBucket),
        emptyText: `Nothing expires within ${first} days`,
        className: 'warning',
      },
    ),
    `</div></section>`,
    `<nav aria-label="Other buckets"><div class="cards secondary">${laterCards}</div></nav>`,
    htmlTable(
      { ...supplierTable(summary), name: 'Suppliers by urgency' },
      { id: 'by-supplier', className: 'suppliers' },
    ),
    `<h2>Details</h2>`,
    htmlTable(changeTables(changes)[1]!, { id: 'newly-expiring', emptyText: 'Nothing newly expiring' }),
    ...order.map((bucket) => {
      const table = tables.get(bucket);
      return table ? htmlTable(table, { id: bucketAnchor(bucket) }) : '';
    }),
    htmlTable(tables.get(EXPIRED) ?? { name: 'Expired', columns: certificateColumns, rows: [] }, {
      id: bucketAnchor(EXPIRED),
    }),
  ].join('\n');
  return htmlDocument(`Certificate expiry report ${summary.asOf}`, body, REPORT_EXTRA_STYLE);
}
