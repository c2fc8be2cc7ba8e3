export {
  buildOrders,
  companyCodesIn,
  ExportMismatchError,
  givesCompanyIds,
  type BuildContext,
  type BuildResult,
} from './build';
export * from './draft';
export * from './lookups';
export { orderTypeFor } from './order-type';
