export {
  bucketLabel,
  bucketOrder,
  calendarDate,
  changesSince,
  classifyCertificates,
  daysBetween,
} from './classify';
export type { ExpiryChanges } from './classify';
export * from './model';
export { renderCsv, renderHtml, renderXlsx, summarise, type ExpirySummary } from './render';
