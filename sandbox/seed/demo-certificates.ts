import { CERTIFICATE_STATUSES, CERTIFICATE_TYPES, type CertificateRecord } from '../domains/certificates';
import { FACILITY_PROCESSES } from '../domains/network/processes';
import { BRAND_COMPANY_ID, DEMO_SUPPLIER_IDS } from './demo-network';
import { pick, seededRandom } from '../core/prng';

const DAY = 86_400_000;
export const CERTIFICATE_COUNT = 288;

/** Standards per certificate type: [standardId, certificate name]. */
const STANDARDS: Record<(typeof CERTIFICATE_TYPES)[number], ReadonlyArray<readonly [string, string]>> = {
  COMPANY: [
    ['STD_ISO_14001', 'ISO 14001 Environmental Management'],
    ['STD_SA8000', 'SA8000 Social Accountability'],
    ['STD_ISO_9001', 'ISO 9001 Quality Management'],
  ],
  SCOPE: [
    ['STD_GOTS', 'GOTS Scope Certificate'],
    ['STD_GRS', 'Global Recycled Standard Scope Certificate'],
    ['STD_OCS', 'Organic Content Standard Scope Certificate'],
    ['STD_RWS', 'Responsible Wool Standard Scope Certificate'],
  ],
  MEMBERSHIP: [
    ['STD_BCI', 'Better Cotton Membership'],
    ['STD_AMFORI', 'amfori BSCI Membership'],
    ['STD_ZDHC', 'ZDHC Contributor Membership'],
  ],
  PRODUCT: [
    ['STD_OEKO_TEX_100', 'OEKO-TEX Standard 100'],
    ['STD_BLUESIGN', 'bluesign Product'],
    ['STD_FSC', 'FSC Chain of Custody Product'],
  ],
  TRANSACTION: [
    ['STD_GOTS', 'GOTS Transaction Certificate'],
    ['STD_GRS', 'GRS Transaction Certificate'],
    ['STD_OCS', 'OCS Transaction Certificate'],
  ],
};

const ISSUERS = [
  'Control Union',
  'Ecocert',
  'SGS',
  'Intertek',
  'Bureau Veritas',
  'TÜV SÜD',
  'OEKO-TEX Institute',
  'CU Inspections',
];
const EXPLANATIONS = [
  'Renewal pending audit',
  'Covers dyeing and finishing units',
  'Scope extended to second site',
  'Issued after corrective actions',
];
const MANUFACTURING_PROCESSES = FACILITY_PROCESSES.map((process) => process.id);

/**
 * At least 250 certificates, generated from a fixed seed: every type with every status, held by the suppliers,
 * expiring from two years ago to two years ahead of `now`, about 60% with a document. Every seventh one was
 * uploaded by the brand for its supplier (so the brand owns some drafts and transaction certificates).
 */
export function demoCertificateSection(now: number): Record<string, unknown> {
  const random = seededRandom(20_240_917);
  const certificates: CertificateRecord[] = [];
  for (let index = 0; index < CERTIFICATE_COUNT; index++) {
    // 5 types and 6 statuses are coprime, so any 30 consecutive certificates (any stretch of expiry dates)
    // hold every type with every status; neighbours in time never share one invisible type.
    const type = CERTIFICATE_TYPES[index % CERTIFICATE_TYPES.length] as (typeof CERTIFICATE_TYPES)[number];
    const status = CERTIFICATE_STATUSES[
      index % CERTIFICATE_STATUSES.length
    ] as (typeof CERTIFICATE_STATUSES)[number];
    const [standardId, name] = pick(random, STANDARDS[type]);
    // Every supplier of the brand's network holds certificates, in turn.
    const holder = DEMO_SUPPLIER_IDS[index % DEMO_SUPPLIER_IDS.length] as string;
    const expiration = now - 730 * DAY + Math.floor(((index + random()) / CERTIFICATE_COUNT) * 1460 * DAY);
    const issued = expiration - (365 + Math.floor(random() * 730)) * DAY;
    const hasDocument = random() < 0.6;
    const number = String(index + 1).padStart(4, '0');
    certificates.push({
      id: `cert_demo_${number}`,
      name,
      type,
      standardId,
      companyId: holder,
      createdByCompanyId: index % 7 === 3 ? BRAND_COMPANY_ID : holder,
      documentNumber:
        random() < 0.85 ? `${standardId.replace('STD_', '')}-${2020 + (index % 6)}-${number}` : null,
      licenseNumber: random() < 0.6 ? `LIC-${Math.floor(random() * 900_000 + 100_000)}` : null,
      issueDate: new Date(issued).toISOString(),
      expirationDate: new Date(expiration).toISOString(),
      issuedBy: pick(random, ISSUERS),
      explanation: random() < 0.3 ? pick(random, EXPLANATIONS) : null,
      status,
      facilityProcesses: [
        pick(random, MANUFACTURING_PROCESSES),
        pick(random, MANUFACTURING_PROCESSES),
      ].filter((id, i, all) => all.indexOf(id) === i),
      fileId: hasDocument ? `file_cert_${number}` : null,
      fileContentType: hasDocument ? (random() < 0.8 ? 'application/pdf' : 'image/jpeg') : null,
      createdAt: new Date(issued + DAY).toISOString(),
      updatedAt: new Date(Math.min(now, issued + Math.floor(random() * 400) * DAY)).toISOString(),
    });
  }
  return { certificates };
}
