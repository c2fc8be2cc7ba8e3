import { z } from 'zod';

const siteSchema = z.object({
  companyId: z.string(),
  productionProcessId: z.string(),
  /** Facility process ids; answers show their display names. */
  facilityProcesses: z.array(z.string()).default([]),
  coordinates: z.object({ latitude: z.number(), longitude: z.number() }).nullable().default(null),
  address: z
    .object({
      line1: z.string().nullable().default(null),
      line2: z.string().nullable().default(null),
      city: z.string().nullable().default(null),
      zipCode: z.string().nullable().default(null),
      country: z.string().nullable().default(null),
    })
    .nullable()
    .default(null),
});

export const supplyChainSchema = z.object({
  id: z.string(),
  name: z.string().nullable().default(null),
  productId: z.string(),
  isActive: z.boolean().default(true),
  nodes: z.array(siteSchema).default([]),
  createdAt: z.string().optional(),
});
export type SupplyChainRecord = z.infer<typeof supplyChainSchema>;

export const esgDataPointSchema = z.object({
  platformId: z.string(),
  name: z.string(),
  description: z.string().nullable().default(null),
  impactArea: z.string(),
  impactAreaId: z.string(),
  templateId: z.string(),
  value: z.number().nullable(),
  unit: z.string().nullable().default(null),
  year: z.number().nullable(),
});
export type EsgDataPoint = z.infer<typeof esgDataPointSchema>;

export const esgProfileSchema = z.object({
  companyId: z.string(),
  /** Shared with the companies in its network; an unshared profile is visible to its own company only. */
  isShared: z.boolean().default(true),
  dataPoints: z.array(esgDataPointSchema),
});
export type EsgProfile = z.infer<typeof esgProfileSchema>;

export const networkSectionSchema = z.object({
  supplyChains: z.array(supplyChainSchema).default([]),
  esgProfiles: z.array(esgProfileSchema).default([]),
});
export type NetworkSection = z.input<typeof networkSectionSchema>;
export type NetworkState = z.output<typeof networkSectionSchema>;
