import { toCsv } from '../csv';
import { escapeHtml, htmlDocument, htmlTable } from '../html';
import { tableMatrix, type Column, type Table } from '../table';
import { toXlsx } from '../xlsx';
import { bucketLabel, bucketOrder, countBy, type ExpiryChanges } from './classify';
import { EXPIRED, type BucketId, type ClassifiedCertificate } from './model';

export interface ExpirySummary {
  asOf: string;
  thresholdsDays: number[];
  includedStatuses: string[] | 'all but DRAFT and REJECTED';
  total: number;
  perBucket: Record<BucketId, number>;
  byType: Record<string, number>;
  bySupplier: Array<{ companyId: string; companyName: string; total: number; perBucket: Record<BucketId, number> }>;
  changes: { previousAsOf: string | null; newlyExpired: number; newlyExpiring: number };
}

const certificateColumns: Column<ClassifiedCertificate>[] = [
  { header: 'Supplier', value: (c) => c.companyName ?? c.companyId },
  { header: 'Certificate', value: (c) => c.name },
  { header: 'Type', value: (c) => c.type },
  { header: 'Status', value: (c) => c.status },
  { header: 'Expires on', value: (c) => c.expiresOn },
  { header: 'Days to expiry', value: (c) => c.daysToExpiry },
  { header: 'Document number', value: (c) => c.documentNumber },
  { header: 'Licence number', value: (c) => c.licenseNumber },
  { header: 'Issued by', value: (c) => c.issuedBy },
  { header: 'Certificate id', value: (c) => c.id },
];

export function summarise(
  classified: readonly ClassifiedCertificate[],
  changes: ExpiryChanges,
  options: { asOf: string; thresholdsDays: number[]; includeStatuses?: string[] },
): ExpirySummary {
  const buckets = bucketOrder(options.thresholdsDays);
  const zero = () => Object.fromEntries(buckets.map((bucket) => [bucket, 0])) as Record<BucketId, number>;
  const perBucket = { ...zero(), ...countBy(classified, (c) => c.bucket) };
  const suppliers = new Map<string, ExpirySummary['bySupplier'][number]>();
  for (const certificate of classified) {
    const entry = suppliers.get(certificate.companyId) ?? {
      companyId: certificate.companyId,
      companyName: certificate.companyName ?? certificate.companyId,
      total: 0,
      perBucket: zero(),
    };
    entry.total += 1;
    entry.perBucket[certificate.bucket] = (entry.perBucket[certificate.bucket] ?? 0) + 1;
    suppliers.set(certificate.companyId, entry);
  }
  return {
    asOf: options.asOf,
    thresholdsDays: options.thresholdsDays,
    includedStatuses: options.includeStatuses ?? 'all but DRAFT and REJECTED',
    total: classified.length,
    perBucket,
    byType: countBy(classified, (c) => c.type),
    bySupplier: [...suppliers.values()].sort((a, b) => a.companyName.localeCompare(b.companyName)),
    changes: {
      previousAsOf: changes.previousAsOf,
      newlyExpired: changes.newlyExpired.length,
      newlyExpiring: changes.newlyExpiring.length,
    },
  };
}

function bucketTables(classified: readonly ClassifiedCertificate[], summary: ExpirySummary): Table<ClassifiedCertificate>[] {
  return bucketOrder(summary.thresholdsDays).map((bucket) => ({
    name: bucketLabel(bucket),
    columns: certificateColumns,
    rows: classified.filter((c) => c.bucket === bucket),
  }));
}

function changeTables(changes: ExpiryChanges): Table<ClassifiedCertificate>[] {
  return [
    { name: 'Newly expired', columns: certificateColumns, rows: changes.newlyExpired },
    { name: 'Newly expiring', columns: certificateColumns, rows: changes.newlyExpiring },
  ];
}

type SummaryRow = { label: string; value: string | number };

function summaryTable(summary: ExpirySummary): Table<SummaryRow> {
  const rows: SummaryRow[] = [
    { label: 'As of', value: summary.asOf },
    { label: 'Certificates in report', value: summary.total },
    ...bucketOrder(summary.thresholdsDays).map((bucket) => ({ label: bucketLabel(bucket), value: summary.perBucket[bucket] ?? 0 })),
    { label: 'Previous report', value: summary.changes.previousAsOf ?? 'none' },
    { label: 'Newly expired since previous report', value: summary.changes.newlyExpired },
    { label: 'Newly expiring since previous report', value: summary.changes.newlyExpiring },
  ];
  return { name: 'Summary', columns: [{ header: 'Item', value: (r) => r.label }, { header: 'Value', value: (r) => r.value }], rows };
}

function supplierTable(summary: ExpirySummary): Table<ExpirySummary['bySupplier'][number]> {
  const buckets = bucketOrder(summary.thresholdsDays);
  return {
    name: 'By supplier',
    columns: [
      { header: 'Supplier', value: (s) => s.companyName },
      { header: 'Total', value: (s) => s.total },
      ...buckets.map((bucket) => ({ header: bucketLabel(bucket), value: (s: ExpirySummary['bySupplier'][number]) => s.perBucket[bucket] ?? 0 })),
    ],
    rows: summary.bySupplier,
  };
}

export function renderXlsx(classified: readonly ClassifiedCertificate[], changes: ExpiryChanges, summary: ExpirySummary): Buffer {
  return toXlsx([
    tableMatrix(summaryTable(summary)),
    ...changeTables(changes).map(tableMatrix),
    ...bucketTables(classified, summary).map(tableMatrix),
    tableMatrix(supplierTable(summary)),
  ]);
}

/** One row per certificate, with its bucket and whether it changed since the previous report; changes first. */
export function renderCsv(classified: readonly ClassifiedCertificate[], changes: ExpiryChanges): string {
  const change = new Map<string, string>();
  for (const c of changes.newlyExpired) change.set(c.id, 'newly expired');
  for (const c of changes.newlyExpiring) change.set(c.id, 'newly expiring');
  const rows = [...classified].sort((a, b) => Number(change.has(b.id)) - Number(change.has(a.id)));
  return toCsv({
    name: 'Certificates',
    columns: [
      { header: 'Bucket', value: (c: ClassifiedCertificate) => bucketLabel(c.bucket) },
      { header: 'Change since previous report', value: (c: ClassifiedCertificate) => change.get(c.id) ?? '' },
      ...certificateColumns,
    ],
    rows,
  });
}

export function renderHtml(classified: readonly ClassifiedCertificate[], changes: ExpiryChanges, summary: ExpirySummary): string {
  const cards = bucketOrder(summary.thresholdsDays)
    .map(
      (bucket) =>
        `<div class="card${bucket === EXPIRED ? ' expired' : ''}"><strong>${summary.perBucket[bucket] ?? 0}</strong>${escapeHtml(bucketLabel(bucket))}</div>`,
    )
    .join('');
  const previous = summary.changes.previousAsOf
    ? `Changes since the report of ${escapeHtml(summary.changes.previousAsOf)}.`
    : 'No earlier report to compare with.';
  const body = [
    `<h1>Certificate expiry report</h1>`,
    `<p class="meta">As of ${escapeHtml(summary.asOf)} · ${summary.total} certificates · ${previous}</p>`,
    `<div class="cards">${cards}</div>`,
    ...changeTables(changes).map((table) => htmlTable(table, { emptyText: 'No changes' })),
    ...bucketTables(classified, summary).map((table) => htmlTable(table)),
    htmlTable(supplierTable(summary)),
  ].join('\n');
  return htmlDocument(`Certificate expiry report ${summary.asOf}`, body);
}
