import { z } from 'zod';
import { nullishNumber, nullishString } from './common';

/** The supplier network as the API shows it: a product's supply chain, and a company's ESG data. */
export const supplyChainNodeSchema = z.looseObject({
  tier: nullishString,
  companyId: z.string(),
  companyName: nullishString,
  country: nullishString,
  coordinates: z.looseObject({ latitude: nullishNumber, longitude: nullishNumber }).nullish(),
  address: z.looseObject({}).nullish(),
  /** Display names, not ids. */
  facilityProcesses: z.array(z.string()).nullish(),
  productionProcess: nullishString,
});

export const supplyChainSchema = z.looseObject({
  productId: z.string(),
  productName: nullishString,
  nodesByProductionProcesses: z.array(
    z.looseObject({
      productionProcessId: z.string(),
      productionProcessName: nullishString,
      tier: nullishString,
      nodes: z.array(supplyChainNodeSchema),
    }),
  ),
});
export type SupplyChain = z.infer<typeof supplyChainSchema>;

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
