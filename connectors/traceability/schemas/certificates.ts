import { z } from 'zod';
import { nullishString, pageQuerySchema, sortOrderSchema } from './common';

// The spec's lists (types, statuses, sorts); the sandbox keeps its own on purpose (it is the oracle, sharing no code).
export const certificateTypeSchema = z.enum(['COMPANY', 'SCOPE', 'MEMBERSHIP', 'PRODUCT', 'TRANSACTION']);
export const certificateStatusSchema = z.enum([
  'DRAFT',
  'REQUESTED',
  'APPROVED',
  'REJECTED',
  'ACKNOWLEDGED',
  'NOT_VERIFIABLE',
]);

/** `fileUrl` is signed for one hour: use it at once, never store it. */
export const certificateSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: certificateTypeSchema,
  companyId: z.string(),
  companyName: nullishString,
  companyOfficialName: nullishString,
  documentNumber: nullishString,
  licenseNumber: nullishString,
  issueDate: nullishString,
  expirationDate: nullishString,
  issuedBy: nullishString,
  explanation: nullishString,
  status: certificateStatusSchema,
  fileUrl: nullishString,
  fileContentType: nullishString,
});
export type Certificate = z.infer<typeof certificateSchema>;

export const certificateFilterSchema = z.strictObject({
  name: z.string().optional(),
  companyName: z.string().optional(),
  status: z.string().optional(),
  type: z.string().optional(),
  explanation: z.string().optional(),
  issuedBy: z.string().optional(),
  documentNumber: z.string().optional(),
  licenseNumber: z.string().optional(),
  facilityProcesses: z.union([z.string(), z.array(z.string())]).optional(),
  standardIds: z.union([z.string(), z.array(z.string())]).optional(),
  companyId: z.string().optional(),
});

export const certificateListQuerySchema = pageQuerySchema.extend({
  sort: z
    .enum([
      'name',
      'companyName',
      'status',
      'updatedAt',
      'expirationDate',
      'type',
      'documentNumber',
      'licenseNumber',
      'issueDate',
      'issuedBy',
    ])
    .optional(),
  order: sortOrderSchema.optional(),
  status: certificateStatusSchema.optional(),
  type: certificateTypeSchema.optional(),
  companyId: z.string().optional(),
  standardId: z.string().optional(),
  filter: certificateFilterSchema.optional(),
});
export type CertificateListQuery = z.input<typeof certificateListQuerySchema>;
