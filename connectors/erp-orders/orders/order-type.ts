import type { OrderType } from '../../traceability/schemas/orders';
import { fail, ok, type Parsed } from '../values/result';

/** The order type the server will compute from the parties; the caller's company must be one of them. */
export function orderTypeFor(
  ownCompanyId: string,
  buyerCompanyId: string,
  supplierCompanyId: string,
): Parsed<OrderType> {
  const isBuyer = buyerCompanyId === ownCompanyId;
  const isSupplier = supplierCompanyId === ownCompanyId;
  if (isBuyer && isSupplier) return ok('INTERNAL_ORDER');
  if (isBuyer) return ok('PURCHASE_ORDER');
  if (isSupplier) return ok('SALES_ORDER');
  return fail(
    `your company (${ownCompanyId}) is neither the buyer (${buyerCompanyId}) nor the supplier (${supplierCompanyId})`,
  );
}
