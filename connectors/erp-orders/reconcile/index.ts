export {
  existingOrderLineSchema,
  existingOrderSchema,
  type ExistingOrder,
  type ExistingOrderLine,
} from './existing';
export {
  planLines,
  productProblem,
  temporaryLineNumber,
  type LineOptions,
  type LinePatchEntry,
  type LinePlan,
  type LineSummary,
} from './lines';
export { storedTags } from './normalise';
export { orderFieldChanges, type OrderFieldPatch } from './order-fields';
export { createBody, planOrderSync, type OrderPlan, type PlanInput } from './plan';
