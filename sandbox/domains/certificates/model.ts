import { z } from 'zod';

// The spec's certificate lists; connectors/certificate-report keeps its own copy on purpose: the sandbox is the oracle.
export const CERTIFICATE_TYPES = ['COMPANY', 'SCOPE', 'MEMBERSHIP', 'PRODUCT', 'TRANSACTION'] as const;
export const CERTIFICATE_STATUSES = [
  'DRAFT',
  'REQUESTED',
  'APPROVED',
  'REJECTED',
  'ACKNOWLEDGED',
  'NOT_VERIFIABLE',
] as const;

/** A certificate as seeded and stored; company names are read from the network at answer time. */
export const certificateSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(CERTIFICATE_TYPES),
  standardId: z.string(),
  /** The supplier company holding (owning) the certificate. */
  companyId: z.string(),
  createdByCompanyId: z.string(),
  documentNumber: z.string().nullable(),
  licenseNumber: z.string().nullable(),
  issueDate: z.string(),
  expirationDate: z.string(),
  issuedBy: z.string(),
  explanation: z.string().nullable(),
  status: z.enum(CERTIFICATE_STATUSES),
  facilityProcesses: z.array(z.string()),
  /** The attached document; null when none is attached (fileUrl is then null). */
  fileId: z.string().nullable(),
  fileContentType: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CertificateRecord = z.infer<typeof certificateSchema>;

export const certificateSectionSchema = z.array(certificateSchema).default([]);
