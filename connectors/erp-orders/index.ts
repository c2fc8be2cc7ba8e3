/** ERP order exports → order drafts → API plans. Pure: no API calls here. */
export { closeMatches, didYouMean, levenshtein } from '../traceability/name-matching';
export * from './orders';
export * from './profile';
export * from './read';
export * from './reconcile';
export * from './rejects';
export type { DateFormat } from './values/dates';
export type { DecimalSeparator } from './values/quantities';
