import { readFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import type { CertificateReportResult } from '../../activities/certificate-report';
import type { TestStack } from '../harness';
import { certificateReportRunner, startCertificateReportStack } from './certificate-report-stack';

// TEMPORAL-NOTES: "A payload errors at 2 MB"; DESIGN: "Large data never travels in a payload". The result lists the
// most urgent suppliers; every supplier is in summary.json and the xlsx's By supplier sheet.
describe('certificateReport with more suppliers than the result lists', () => {
  const SUPPLIERS = 205;
  let stack: TestStack;
  const report = certificateReportRunner(() => stack);

  beforeAll(async () => {
    // Certificates the brand created for suppliers of its own (so it sees them), one supplier each; the first
    // expired, so it is the most urgent.
    stack = await startCertificateReportStack('cert-report-suppliers-', (template) =>
      Array.from({ length: SUPPLIERS }, (_, i) => ({
        ...template,
        id: `cert_many_${String(i).padStart(3, '0')}`,
        companyId: `cmp_many_${String(i).padStart(3, '0')}`,
        createdByCompanyId: 'cmp_brand_nordic_threads',
        expirationDate: i === 0 ? '2026-10-01T00:00:00Z' : '2027-12-01T00:00:00Z',
      })),
    );
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('lists the 200 most urgent suppliers, says how many more and where every one is', async () => {
    const result = await report({ asOf: '2026-11-02' }, 'suppliers');
    expect(result.total).toBe(SUPPLIERS);
    expect(result.bySupplier).toHaveLength(200);
    expect(result.bySupplier[0]).toMatchObject({ companyId: 'cmp_many_000', perBucket: { expired: 1 } });
    expect(result).toMatchObject({ suppliers: SUPPLIERS, suppliersOmitted: SUPPLIERS - 200 });
    const summary = JSON.parse(readFileSync(result.files.json, 'utf8')) as CertificateReportResult;
    expect(summary.bySupplier).toHaveLength(SUPPLIERS);
    expect(summary).toMatchObject({ suppliers: SUPPLIERS, suppliersOmitted: 0 });
    const workbook = XLSX.readFile(result.files.xlsx);
    expect(XLSX.utils.sheet_to_json(workbook.Sheets['By supplier'] as XLSX.WorkSheet)).toHaveLength(
      SUPPLIERS,
    );
  });
});

// An xlsx text cell (t="s") is never a formula, so the report's workbook holds a certificate "+Plus Organic Scope" or a
// document number "-CU-1234" as given; only the csv, which a spreadsheet parses, gets an apostrophe in front.
describe('certificateReport with names and numbers that start like a formula', () => {
  let stack: TestStack;
  const report = certificateReportRunner(() => stack);

  beforeAll(async () => {
    stack = await startCertificateReportStack('cert-report-text-', (template) => [
      {
        ...template,
        id: 'cert_text_as_given',
        name: '+Plus Organic Scope',
        documentNumber: '-CU-1234',
        licenseNumber: '@LIC-9',
        createdByCompanyId: 'cmp_brand_nordic_threads',
        expirationDate: '2026-11-20T12:00:00Z',
      },
    ]);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('the xlsx holds them as given, in plain text cells; the csv neutralises them', async () => {
    const result = await report({ asOf: '2026-11-02' }, 'text-as-given');
    const workbook = XLSX.readFile(result.files.xlsx);
    const sheet = workbook.Sheets['Expiring in 0–30 days']!;
    const [row] = XLSX.utils.sheet_to_json<Record<string, unknown>>(sheet);
    expect(row).toMatchObject({
      Certificate: '+Plus Organic Scope',
      'Document number': '-CU-1234',
      'Licence number': '@LIC-9',
    });
    const header = XLSX.utils.sheet_to_json<string[]>(sheet, { header: 1 })[0]!;
    for (const column of ['Certificate', 'Document number', 'Licence number']) {
      const cell = sheet[XLSX.utils.encode_cell({ r: 1, c: header.indexOf(column) })];
      expect([column, cell?.t, cell?.f]).toEqual([column, 's', undefined]);
    }
    const csvRow = readFileSync(result.files.csv, 'utf8')
      .split('\r\n')
      .find((line) => line.endsWith(',cert_text_as_given'));
    expect(csvRow).toContain(",'+Plus Organic Scope,");
    expect(csvRow).toContain(",'-CU-1234,'@LIC-9,");
  });
});
