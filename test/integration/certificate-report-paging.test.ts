import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CertificateReportResult } from '../../activities/certificate-report';
import { createActivities } from '../../activities';
import type {
  CallOptions,
  Certificate,
  CertificateListQuery,
  Page,
  TraceabilityClient,
} from '../../connectors/traceability';
import type { CertificatesResource } from '../../connectors/traceability/resources/certificates';
import { certificatesDomain, type CertificateRecord } from '../../sandbox/domains/certificates';
import { certificateReport } from '../../workflows';
import type { TestStack } from '../harness';
import { certificateReportRunner, startCertificateReportStack } from './certificate-report-stack';

type PageHook = (query: CertificateListQuery, answer: Page<Certificate>) => void;

/**
 * The worker's client, with `hook` called after each certificate page is answered and before the activity sees it:
 * the test's way to change a certificate between two page reads (the product has no such hook).
 */
function withPageHook(client: TraceabilityClient, hook: () => PageHook | undefined): TraceabilityClient {
  const certificates = Object.create(client.certificates) as CertificatesResource;
  certificates.list = async (query: CertificateListQuery = {}, options?: CallOptions) => {
    const answer = await client.certificates.list(query, options);
    hook()?.(query, answer);
    return answer;
  };
  return Object.assign(Object.create(client) as TraceabilityClient, { certificates });
}

/**
 * Registers the describe block's beforeAll and afterAll: a stack whose sandbox holds `certificates(template)` (see
 * startCertificateReportStack) and whose worker's certificate pages pass through `hook`. The returned helpers work
 * inside its tests: `update` changes a certificate in the sandbox as the API would, `run` reports as of 2026-06-01
 * (as `cert-report-<name>-<run>`), and `rows` reads the report's CSV by certificate id.
 */
function hookedCertificateStack(
  name: string,
  certificates: (template: Record<string, unknown>) => Array<Record<string, unknown>>,
  hook: () => PageHook | undefined,
) {
  let stack: TestStack | undefined;
  const started = (): TestStack => {
    if (!stack) throw new Error('the test stack starts in beforeAll: use it inside a test or hook');
    return stack;
  };
  const store = () => started().sandbox.ctx.store(certificatesDomain);
  const update = (id: string, change: Partial<CertificateRecord>) => {
    const record = store().get(id)!;
    store().set(id, { ...record, ...change, updatedAt: new Date().toISOString() });
  };
  const report = certificateReportRunner(started);
  const run = (runName: string): Promise<CertificateReportResult> =>
    report({ asOf: '2026-06-01', timeZone: 'UTC' }, `${name}-${runName}`);
  const rows = (result: CertificateReportResult) =>
    new Map(
      readFileSync(result.files.csv, 'utf8')
        .split('\r\n')
        .slice(1)
        .filter((line) => line !== '')
        .map((line) => {
          const fields = line.split(',');
          return [fields[fields.length - 1]!, { expiresOn: fields[3], status: fields[7] }] as const;
        }),
    );

  beforeAll(async () => {
    stack = await startCertificateReportStack(`cert-report-${name}-`, certificates, {
      activities: (deps) => createActivities({ ...deps, client: withPageHook(deps.client, hook) }),
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  return { stack: started, store, update, run, rows };
}

const DAY = 86_400_000;
const APPROVED = 150;
const ACKNOWLEDGED = 3;

/**
 * Spec 01: "Pagination: `page` is 1-based ... Iterate until `page` reaches `totalPages`", each list answer carrying
 * `metadata.pagination` with `total`; spec 03: GET /certificates sorts by `expirationDate` or `status` among others,
 * none of which a renewal or a status change leaves alone. A certificate that moves while the list is read by offset
 * shifts another one onto a page already read: the report must still hold every certificate, or fail saying so.
 */
describe('certificateReport reads every certificate even when one changes between page reads', () => {
  let hook: PageHook | undefined;
  const { stack, store, update, run, rows } = hookedCertificateStack(
    'paging',
    (template) => {
      const at = (index: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + index * DAY).toISOString();
      return [
        ...Array.from({ length: APPROVED }, (_, i) => ({
          ...template,
          id: `cert_page_${String(i).padStart(3, '0')}`,
          status: 'APPROVED',
          expirationDate: at(i),
        })),
        ...Array.from({ length: ACKNOWLEDGED }, (_, i) => ({
          ...template,
          id: `cert_ack_${i}`,
          status: 'ACKNOWLEDGED',
          expirationDate: at(i),
        })),
      ];
    },
    () => hook,
  );
  const setTies = async (certificateTies: 'stable' | 'shuffled') => {
    const response = await fetch(`${stack().sandbox.url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ certificateTies }),
    });
    expect(response.status).toBe(200);
  };

  afterEach(() => {
    hook = undefined;
  });

  it('a certificate renewed after page 1 was read (its expirationDate moved on) skips no other one', async () => {
    let renewed: string | undefined;
    hook = (query, answer) => {
      if (renewed || query.status !== 'APPROVED' || query.page !== 1) return;
      // The soonest expiring one is renewed: it leaves page 1 for the end of the list, and the first certificate
      // of page 2 moves onto page 1, already read.
      renewed = answer.items[0]!.id;
      update(renewed, { expirationDate: '2029-01-01T00:00:00.000Z' });
    };
    const result = await run('renewed');
    expect(renewed).toBe('cert_page_000');
    const ids = rows(result);
    expect(ids.has('cert_page_100')).toBe(true);
    expect(ids.size).toBe(APPROVED + ACKNOWLEDGED);
    expect(result.total).toBe(APPROVED + ACKNOWLEDGED);
    expect(ids.get('cert_page_000')?.expiresOn).toBe('2029-01-01');
  });

  it('a certificate whose status moves into a list already read (ACKNOWLEDGED to APPROVED) is still reported', async () => {
    let moved = false;
    hook = (query, answer) => {
      if (moved || query.status !== 'APPROVED' || query.page !== answer.pagination.totalPages) return;
      moved = true;
      update('cert_ack_0', { status: 'APPROVED' });
    };
    const result = await run('status');
    expect(moved).toBe(true);
    const ids = rows(result);
    expect(ids.get('cert_ack_0')?.status).toBe('APPROVED');
    expect(ids.size).toBe(APPROVED + ACKNOWLEDGED);
    update('cert_ack_0', { status: 'ACKNOWLEDGED' });
  });

  it('a certificate the pages never list, though the total counts it, fails naming the list and writes no report', async () => {
    // The API counts every APPROVED certificate in `pagination.total` but no page ever lists cert_page_042: a
    // certificate really missing from what the API lists, which no re-read can find.
    hook = (query, answer) => {
      if (query.status !== 'APPROVED') return;
      const at = answer.items.findIndex((c) => c.id === 'cert_page_042');
      if (at >= 0) answer.items.splice(at, 1);
    };
    const folder = path.join(stack().config.dataDir, 'reports', 'certificate-expiry', '2026-06-02');
    await expect(
      stack().client.workflow.execute(certificateReport, {
        args: [{ asOf: '2026-06-02', timeZone: 'UTC' }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('cert-report-paging-unsettled'),
      }),
    ).rejects.toMatchObject({
      // The run's own failure says why (the activity's failure is its cause), not "Activity task failed".
      cause: {
        type: 'CertificateListUnsettled',
        message: expect.stringMatching(
          /certificates with status APPROVED: the API counts 150 but \d+ reads of its pages listed 149 .*; no report written/,
        ),
      },
    });
    expect(existsSync(folder)).toBe(false);
  });

  /**
   * Spec 03 promises "Paging order is stable for equal sort values" of GET /orders only; GET /certificates promises
   * nothing of the kind, and certificates often share an expiry date (or an update time, after a bulk load). A server
   * that answers ties in another order on each query shows every read of the pages a repeat and a gap, though no
   * certificate changed: the report must still hold every certificate, in few calls.
   */
  it('certificates sharing their sort values, answered in another order on each query, are all reported', async () => {
    const saved = new Map([...store().entries()].map(([id, record]) => [id, { ...record }]));
    try {
      for (const [id, record] of store()) {
        if (record.status !== 'APPROVED') continue;
        // Every APPROVED certificate ties with 119 others on expirationDate and with all on updatedAt.
        const index = Number(id.slice(-3));
        store().set(id, {
          ...record,
          expirationDate: index < 120 ? '2026-12-31T00:00:00.000Z' : record.expirationDate,
          updatedAt: '2025-01-01T00:00:00.000Z',
        });
      }
      await setTies('shuffled');
      const result = await run('ties');
      const ids = rows(result);
      expect(ids.size).toBe(APPROVED + ACKNOWLEDGED);
      expect(result.total).toBe(APPROVED + ACKNOWLEDGED);
      // Four lists of at most two pages; each further read of the APPROVED list costs its two pages again.
      expect(result.apiCalls).toBeLessThanOrEqual(20);
    } finally {
      await setTies('stable');
      for (const [id, record] of saved) store().set(id, record);
    }
  });
});

const REQUESTED = 250;
const REJECTED = 1_010;

/**
 * Spec 01 Shared conventions 4: "Iterate until `page` reaches `totalPages`"; spec 03 promises a stable paging order
 * for GET /orders only, and a status list gains certificates as well as it loses them (a draft submitted, a review
 * done). Two changes while one list is read can leave its `total` as it was while a certificate slides onto a page
 * already read: the report must still hold every certificate, each with the status it has now, or fail saying so.
 */
describe('certificateReport when two status changes while a list is read leave its total as it was', () => {
  let hook: PageHook | undefined;
  // Updated a minute apart, oldest first: read by `updatedAt` ascending, req_001 to req_100 are page 1.
  const at = (minutes: number) =>
    new Date(Date.parse('2020-01-01T00:00:00Z') + minutes * 60_000).toISOString();
  const { stack, store, update, run, rows } = hookedCertificateStack(
    'pair',
    (template) => [
      ...Array.from({ length: REQUESTED }, (_, i) => ({
        ...template,
        id: `req_${String(i + 1).padStart(3, '0')}`,
        status: 'REQUESTED',
        expirationDate: '2026-12-01T00:00:00.000Z',
        updatedAt: at(i + 1),
      })),
      // Rejected before the test: a status the report does not read, but the newest changes list them.
      ...Array.from({ length: REJECTED }, (_, i) => ({
        ...template,
        id: `rej_${String(i + 1).padStart(3, '0')}`,
        status: 'REJECTED',
        expirationDate: '2026-12-01T00:00:00.000Z',
        updatedAt: at(-1_000 + i),
      })),
      // A supplier's own draft: the brand cannot see it until the supplier submits it.
      {
        ...template,
        id: 'draft_1',
        status: 'DRAFT',
        createdByCompanyId: template['companyId'],
        expirationDate: '2026-12-01T00:00:00.000Z',
        updatedAt: at(0),
      },
    ],
    () => hook,
  );
  let seeded: Map<string, CertificateRecord>;

  beforeAll(() => {
    seeded = new Map([...store().entries()].map(([id, record]) => [id, { ...record }]));
  });

  afterEach(() => {
    hook = undefined;
    store().clear();
    for (const [id, record] of seeded) store().set(id, { ...record });
  });

  it('on a quiet night reads each list once: its pages and 2 calls more', async () => {
    const result = await run('quiet');
    expect(result.total).toBe(REQUESTED);
    // REQUESTED: 3 pages; APPROVED, ACKNOWLEDGED, NOT_VERIFIABLE: 1 (empty) page each; the newest changes before the
    // lists and after them: 1 call each.
    expect(result.apiCalls).toBe(3 + 3 + 2);
  });

  it('a certificate approved and a draft submitted into REQUESTED after its page 1 was read: none missing, none stale', async () => {
    let fired = false;
    hook = (query) => {
      if (fired || query.status !== 'REQUESTED' || query.page !== 1) return;
      fired = true;
      // req_005 leaves REQUESTED (page 1, read) and draft_1 joins it at the end: the total stays 250, and req_101
      // slides onto page 1, already read.
      update('req_005', { status: 'APPROVED' });
      update('draft_1', { status: 'REQUESTED' });
    };
    const result = await run('pair');
    expect(fired).toBe(true);
    const ids = rows(result);
    expect(ids.has('req_101')).toBe(true);
    expect(ids.get('req_005')?.status).toBe('APPROVED');
    expect(ids.get('draft_1')?.status).toBe('REQUESTED');
    expect(ids.size).toBe(REQUESTED + 1);
    expect(result.total).toBe(REQUESTED + 1);
  });

  it('a certificate rejected and a draft submitted into REQUESTED after its page 1 was read: the rejected one is not reported', async () => {
    let fired = false;
    hook = (query) => {
      if (fired || query.status !== 'REQUESTED' || query.page !== 1) return;
      fired = true;
      // REJECTED is a status the report does not read: req_005 is in no other list to give it away.
      update('req_005', { status: 'REJECTED' });
      update('draft_1', { status: 'REQUESTED' });
    };
    const result = await run('rejected');
    expect(fired).toBe(true);
    const ids = rows(result);
    expect(ids.has('req_101')).toBe(true);
    expect(ids.has('req_005')).toBe(false);
    expect(ids.get('draft_1')?.status).toBe('REQUESTED');
    expect(ids.size).toBe(REQUESTED);
  });

  it('a certificate rejected while REQUESTED is read, then more than 100 others changed: still not reported', async () => {
    let moved: string | undefined;
    let later: string | undefined;
    hook = (query) => {
      if (query.status !== 'REQUESTED') return;
      if (query.page === 1 && moved === undefined) {
        // As above: req_005 leaves the list, draft_1 joins it, req_101 slides onto page 1, already read.
        update('req_005', { status: 'REJECTED' });
        update('draft_1', { status: 'REQUESTED' });
        moved = store().get('req_005')!.updatedAt;
      } else if (query.page === 2 && moved !== undefined && later === undefined) {
        // Then 101 other certificates are reviewed again (in a status not reported), each after req_005: the
        // 100 certificates changed last are all these, req_005 and draft_1 come after them.
        for (let i = 1; i <= 101; i++)
          update(`rej_${String(i).padStart(3, '0')}`, { explanation: 'Reviewed again' });
        later = store().get('rej_001')!.updatedAt;
      }
    };
    const result = await run('many');
    expect(later! > moved!).toBe(true);
    const ids = rows(result);
    expect(ids.has('req_101')).toBe(true);
    expect(ids.has('req_005')).toBe(false);
    expect(ids.get('draft_1')?.status).toBe('REQUESTED');
    expect(ids.size).toBe(REQUESTED);
    // Read 1: the newest changes before (1), the lists (3 + 3) and the newest changes after, on to req_250, the
    // newest one not changed since (2). Read 2: the lists again and the newest changes, unchanged since (1).
    expect(result.apiCalls).toBe(1 + 3 + 3 + 2 + (3 + 3 + 1));
  });

  it('the certificate changed last before the read, deleted during it, costs no further call', async () => {
    update('rej_1010', { explanation: 'Reviewed' });
    hook = (query) => {
      if (query.status === 'REQUESTED' && query.page === 1) store().delete('rej_1010');
    };
    const result = await run('deleted');
    expect(store().has('rej_1010')).toBe(false);
    expect(result.total).toBe(REQUESTED);
    // As on a quiet night: the newest changes after the lists begin with the ones before but the one deleted.
    expect(result.apiCalls).toBe(3 + 3 + 2);
  });

  it('more than 1,000 certificates changed during each read of the lists: fails saying so, no report', async () => {
    let reads = 0;
    hook = (query) => {
      if (query.status !== 'REQUESTED' || query.page !== 1) return;
      reads++;
      for (let i = 1; i <= 1_001; i++)
        update(`rej_${String(i).padStart(3, '0')}`, { explanation: `Reviewed again (${reads})` });
    };
    const folder = path.join(stack().config.dataDir, 'reports', 'certificate-expiry', '2026-06-03');
    await expect(
      stack().client.workflow.execute(certificateReport, {
        args: [{ asOf: '2026-06-03', timeZone: 'UTC' }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('cert-report-pair-flood'),
      }),
    ).rejects.toMatchObject({
      // The run's own failure says why (the activity's failure is its cause), not "Activity task failed".
      cause: {
        type: 'CertificateListUnsettled',
        message: expect.stringMatching(
          /^more than 1000 certificates changed while the lists were read, in each of 3 reads in a row; no report written/,
        ),
      },
    });
    expect(reads).toBe(3);
    expect(existsSync(folder)).toBe(false);
  });
});
