export {
  advanceMark,
  highWaterMarkSchema,
  INITIAL_MARK,
  ordersSince,
  pullQuery,
  type HighWaterMark,
  type Stamped,
} from './high-water-mark';
export { ORDER_EXPORT_COLUMNS, ordersToCsv, ordersToNdjson } from './writers';
