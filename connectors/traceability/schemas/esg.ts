import { z } from 'zod';
import { nullishNumber, nullishString } from './common';

export const esgDataPointSchema = z.looseObject({
  platformId: z.string(),
  name: z.string(),
  description: nullishString,
  impactArea: nullishString,
  impactAreaId: nullishString,
  templateId: nullishString,
  value: z.number().nullable(),
  unit: nullishString,
  year: nullishNumber,
});
export type EsgDataPoint = z.infer<typeof esgDataPointSchema>;

const sectionSchema = z.looseObject({
  sectionId: z.string(),
  name: z.string(),
  totalDataPoints: z.number(),
  answeredDataPoints: z.number(),
  dataPoints: z.array(esgDataPointSchema),
});

export const companyEsgSchema = z.looseObject({
  companyId: z.string(),
  environmental: sectionSchema,
  social: sectionSchema,
  governance: sectionSchema,
});
export type CompanyEsg = z.infer<typeof companyEsgSchema>;

export const esgQuerySchema = z.strictObject({
  templateId: z.string().optional(),
  platformId: z.string().optional(),
  name: z.string().optional(),
  impactArea: z.string().optional(),
});
export type EsgQuery = z.input<typeof esgQuerySchema>;
