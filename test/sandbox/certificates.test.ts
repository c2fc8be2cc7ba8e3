import type { CertificateRecord } from '../../sandbox/domains/certificates';
import { sandboxPerFile } from '../harness/sandbox-client';

interface Certificate {
  id: string;
  name: string;
  type: string;
  status: string;
  companyId: string;
  companyName: string;
  companyOfficialName: string;
  expirationDate: string;
  issuedBy: string;
  documentNumber: string | null;
  fileUrl: string | null;
  fileContentType: string | null;
  [key: string]: unknown;
}

const BRAND = 'cmp_brand_nordic_threads';
const SUPPLIER = 'cmp_sup_anatolia_garments';
const YEAR = 365 * 86_400_000;

const file = sandboxPerFile({ childLinkDelayMs: 0 });
const api = <T>(path: string, key?: string) => file.api<T>('GET', path, undefined, key);
let stored: CertificateRecord[];

async function all(query = '', key = 'sandbox-key-brand'): Promise<Certificate[]> {
  const out: Certificate[] = [];
  for (let page = 1; ; page++) {
    const response = await api<Certificate[]>(`/certificates?limit=100&page=${page}${query}`, key);
    out.push(...response.body.data);
    if (page >= (response.body.metadata.pagination?.totalPages ?? 0)) return out;
  }
}

const filter = (value: Record<string, unknown>): string =>
  `&filter=${encodeURIComponent(JSON.stringify(value))}`;

function example(predicate: (certificate: CertificateRecord) => boolean): CertificateRecord {
  const found = stored.find(predicate);
  if (!found) throw new Error('seed has no such certificate');
  return found;
}

beforeAll(async () => {
  const state = (await (await fetch(`${file.sandbox.url}/__sandbox/state`)).json()) as {
    certificates: CertificateRecord[];
  };
  stored = state.certificates;
});

describe('certificate seed', () => {
  it('rule: the demo holds at least 250 certificates of every type and status, held by suppliers', () => {
    expect(stored.length).toBeGreaterThanOrEqual(250);
    expect(new Set(stored.map((certificate) => certificate.type))).toEqual(
      new Set(['COMPANY', 'SCOPE', 'MEMBERSHIP', 'PRODUCT', 'TRANSACTION']),
    );
    expect(new Set(stored.map((certificate) => certificate.status))).toEqual(
      new Set(['DRAFT', 'REQUESTED', 'APPROVED', 'REJECTED', 'ACKNOWLEDGED', 'NOT_VERIFIABLE']),
    );
    expect(stored.every((certificate) => certificate.companyId.startsWith('cmp_sup_'))).toBe(true);
  });

  it('rule: expiration dates spread from two years ago to two years ahead', async () => {
    const dates = (await all()).map((certificate) => Date.parse(certificate.expirationDate));
    const now = Date.now();
    expect(Math.min(...dates)).toBeLessThan(now - 1.5 * YEAR);
    expect(Math.max(...dates)).toBeGreaterThan(now + 1.5 * YEAR);
    expect(dates.some((date) => date > now - 30 * 86_400_000 && date < now + 90 * 86_400_000)).toBe(true);
  });
});

describe('certificate visibility', () => {
  it('rule: a DRAFT is visible only to its creator, even to the holding supplier', async () => {
    const supplierDraft = example(
      (c) =>
        c.status === 'DRAFT' &&
        c.companyId === SUPPLIER &&
        c.createdByCompanyId === SUPPLIER &&
        c.type !== 'TRANSACTION',
    );
    const brandDraft = example(
      (c) => c.status === 'DRAFT' && c.companyId === SUPPLIER && c.createdByCompanyId === BRAND,
    );
    const hidden = await api(`/certificates/${supplierDraft.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('certificate_not_found');
    expect((await api(`/certificates/${supplierDraft.id}`, 'sandbox-key-supplier')).status).toBe(200);
    expect((await api(`/certificates/${brandDraft.id}`)).status).toBe(200);
    expect((await api(`/certificates/${brandDraft.id}`, 'sandbox-key-supplier')).status).toBe(404);
    const listed = (await all('&status=DRAFT')).map((certificate) => certificate.id);
    expect(listed).toContain(brandDraft.id);
    expect(listed).not.toContain(supplierDraft.id);
  });

  it('rule: a TRANSACTION certificate the caller neither created nor owns is 403 forbidden by id and absent from lists', async () => {
    const restricted = example(
      (c) =>
        c.type === 'TRANSACTION' &&
        c.status !== 'DRAFT' &&
        c.companyId === SUPPLIER &&
        c.createdByCompanyId === SUPPLIER,
    );
    const response = await api(`/certificates/${restricted.id}`);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
    expect((await all('&type=TRANSACTION')).map((certificate) => certificate.id)).not.toContain(
      restricted.id,
    );
    expect((await api(`/certificates/${restricted.id}`, 'sandbox-key-supplier')).status).toBe(200);
  });

  it('rule: a TRANSACTION certificate is readable by the company that created it', async () => {
    const created = example(
      (c) => c.type === 'TRANSACTION' && c.status !== 'DRAFT' && c.createdByCompanyId === BRAND,
    );
    expect((await api<Certificate>(`/certificates/${created.id}`)).body.data.id).toBe(created.id);
  });

  it("rule: certificates of companies outside the caller's network are invisible (404 certificate_not_found)", async () => {
    const certificate = example((c) => c.status === 'APPROVED' && c.type === 'COMPANY');
    const other = await api(`/certificates/${certificate.id}`, 'sandbox-key-other-brand');
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('certificate_not_found');
    expect((await api<Certificate[]>('/certificates', 'sandbox-key-other-brand')).body.data).toEqual([]);
    expect((await api('/certificates/cert_missing')).body.code).toBe('certificate_not_found');
  });
});

describe('certificate list filters and sort', () => {
  it('rule: status, type, companyId and standardId query filters match exactly', async () => {
    const approved = await all(`&status=APPROVED&type=SCOPE&companyId=${SUPPLIER}`);
    expect(approved.length).toBeGreaterThan(0);
    expect(
      approved.every((c) => c.status === 'APPROVED' && c.type === 'SCOPE' && c.companyId === SUPPLIER),
    ).toBe(true);
    const standard = example((c) => c.standardId === 'STD_GOTS');
    const byStandard = (await all('&standardId=STD_GOTS')).map((certificate) => certificate.id);
    expect(byStandard.length).toBeGreaterThan(0);
    expect(stored.filter((c) => byStandard.includes(c.id)).every((c) => c.standardId === 'STD_GOTS')).toBe(
      true,
    );
    expect(standard.standardId).toBe('STD_GOTS');
  });

  it('rule: the JSON filter matches name, companyName and issuedBy as case-insensitive substrings', async () => {
    const byName = await all(filter({ name: 'gots' }));
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((certificate) => certificate.name.toLowerCase().includes('gots'))).toBe(true);
    const byCompany = await all(filter({ companyName: 'ANATOLIA', issuedBy: 'sgs' }));
    expect(byCompany.length).toBeGreaterThan(0);
    expect(byCompany.every((c) => c.companyName === 'Anatolia Garments' && c.issuedBy === 'SGS')).toBe(true);
  });

  it('rule: the JSON filter takes lists for status, type, standardIds, companyId and facilityProcesses', async () => {
    const listed = await all(
      filter({
        status: ['APPROVED', 'REJECTED'],
        type: 'PRODUCT',
        companyId: [SUPPLIER, 'cmp_sup_prato_wool'],
      }),
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(
      listed.every(
        (c) =>
          ['APPROVED', 'REJECTED'].includes(c.status) &&
          c.type === 'PRODUCT' &&
          [SUPPLIER, 'cmp_sup_prato_wool'].includes(c.companyId),
      ),
    ).toBe(true);
    const process = stored.find((c) => c.status === 'APPROVED')?.facilityProcesses[0] as string;
    const byProcess = (await all(filter({ facilityProcesses: [process] }))).map(
      (certificate) => certificate.id,
    );
    expect(byProcess.length).toBeGreaterThan(0);
    expect(
      stored.filter((c) => byProcess.includes(c.id)).every((c) => c.facilityProcesses.includes(process)),
    ).toBe(true);
    const byStandards = (await all(filter({ standardIds: ['STD_BCI', 'STD_FSC'] }))).map(
      (certificate) => certificate.id,
    );
    expect(
      stored
        .filter((c) => byStandards.includes(c.id))
        .every((c) => ['STD_BCI', 'STD_FSC'].includes(c.standardId)),
    ).toBe(true);
  });

  it('rule: a filter that is not a JSON object is 400', async () => {
    expect((await api('/certificates?filter=not-json')).status).toBe(400);
    expect((await api(`/certificates?filter=${encodeURIComponent('["a"]')}`)).status).toBe(400);
  });

  it('rule: sort takes the listed columns with order asc/desc; others are 400', async () => {
    const ascending = (
      await api<Certificate[]>('/certificates?sort=expirationDate&order=asc&limit=100')
    ).body.data.map((c) => c.expirationDate);
    expect(ascending).toEqual([...ascending].sort());
    const descending = (
      await api<Certificate[]>('/certificates?sort=name&order=desc&limit=100')
    ).body.data.map((c) => c.name);
    expect(descending).toEqual([...descending].sort().reverse());
    expect((await api('/certificates?sort=createdAt')).status).toBe(400);
  });

  it('rule: pages default to 20 and are capped at 100', async () => {
    expect((await api<Certificate[]>('/certificates')).body.data).toHaveLength(20);
    const capped = await api<Certificate[]>('/certificates?limit=500');
    expect(capped.body.metadata.pagination?.limit).toBe(100);
    expect(capped.body.data).toHaveLength(100);
  });
});

describe('certificate documents', () => {
  it('rule: fileUrl is null when no document is attached', async () => {
    const bare = example((c) => c.fileId === null && c.status === 'APPROVED' && c.type !== 'TRANSACTION');
    expect((await api<Certificate>(`/certificates/${bare.id}`)).body.data).toMatchObject({
      fileUrl: null,
      fileContentType: null,
    });
  });

  it('rule: every read returns a freshly signed fileUrl, valid for one hour, that downloads the document', async () => {
    const withFile = example((c) => c.fileId !== null && c.status === 'APPROVED' && c.type !== 'TRANSACTION');
    const first = (await api<Certificate>(`/certificates/${withFile.id}`)).body.data;
    const second = (await api<Certificate>(`/certificates/${withFile.id}`)).body.data;
    expect(first.fileUrl).not.toBeNull();
    expect(second.fileUrl).not.toBe(first.fileUrl);
    const url = new URL(first.fileUrl as string);
    const expires = Number(url.searchParams.get('expires'));
    expect(Math.abs(expires - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain(first.fileContentType as string);
    const listed = (await all(`&companyId=${withFile.companyId}`)).find((c) => c.id === withFile.id);
    expect(listed?.fileUrl).toEqual(expect.stringContaining('signature='));
  });

  it('rule: an expired or tampered signed address is refused with 403', async () => {
    const withFile = example((c) => c.fileId !== null && c.status === 'APPROVED' && c.type !== 'TRANSACTION');
    const url = new URL((await api<Certificate>(`/certificates/${withFile.id}`)).body.data.fileUrl as string);
    url.searchParams.set('expires', String(Date.now() - 1000));
    expect((await fetch(url)).status).toBe(403);
  });
});
