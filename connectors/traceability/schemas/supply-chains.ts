import { z } from 'zod';
import { nullishNumber, nullishString } from './common';

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
