/** Shared setup of the orders conformance files: one sandbox per file, request helpers and order builders. */
import type { RunningSandbox } from '../../sandbox/server';
import { sandboxPerFile, type ApiAnswer } from '../harness/sandbox-client';

export interface Line {
  id: string;
  orderId: string;
  lineNo: number;
  orderLineNumber: string;
  styleId: string;
  quantity: number;
  unit: string;
  secondaryQuantity: number | null;
  secondaryUnit: string | null;
  updatedAt: string;
  order?: Record<string, unknown>;
  [key: string]: unknown;
}
export interface Order {
  id: string;
  orderNumber: string;
  orderType: string;
  updatedAt: string;
  lines: Line[];
  lineCount: number;
  tags: string[];
  [key: string]: unknown;
}

export const BRAND = 'cmp_brand_nordic_threads';
export const SUPPLIER = 'cmp_sup_anatolia_garments';
export const OTHER_SUPPLIER = 'cmp_sup_gujarat_mills';
export const OTHER_BRAND = 'cmp_brand_other_label';
export const TEE = 'PLM-TEE-001';
export const TEE_ID = 'style_01J9ZDEM000000000000000001';

let file: ReturnType<typeof sandboxPerFile>;
let sequence = 0;
export const nextNumber = (prefix = 'PO'): string => `${prefix}-${Date.now()}-${++sequence}`;

export const api = <T = Order>(
  method: string,
  path: string,
  body?: unknown,
  key?: string | Record<string, string>,
): Promise<ApiAnswer<T>> => file.api<T>(method, path, body, key);

export const purchase = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  orderNumber: nextNumber(),
  buyerCompanyId: BRAND,
  supplierCompanyId: SUPPLIER,
  ...extra,
});
export const line = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  styleId: TEE,
  quantity: 10,
  unit: 'PIECES',
  ...extra,
});

export async function created(body: Record<string, unknown>): Promise<Order> {
  const response = await api('POST', '/orders', body);
  expect(response.status).toBe(201);
  return response.body.data;
}

export const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

/** Starts this file's sandbox before its tests and closes it after; the getter gives it to the tests. */
export function useOrdersSandbox(): () => RunningSandbox {
  file = sandboxPerFile({ childLinkDelayMs: 0 });
  return () => file.sandbox;
}
