import { counted } from '../counted';

/**
 * How an ERP run counts its rejected orders, with the export rows they take (an order of two lines is two rows):
 * `2 rejected (4 export rows)`. One sentence for the plan awaiting approval and the run's end, which count the same
 * orders. Pure: the workflows import it too.
 */
export function rejectedSaid(orders: number, exportRows: number): string {
  return exportRows > 0 ? `${orders} rejected (${counted(exportRows, 'export row')})` : `${orders} rejected`;
}
