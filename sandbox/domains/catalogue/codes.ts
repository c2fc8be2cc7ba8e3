import { ApiError } from '../../core/errors';
import type { CatalogueStore } from './store';
import type { ProductCode } from './types';

/** Code types allowed at most once per product (connectors/plm-import/code-types.ts keeps its own list on purpose). */
export const SINGLE_USE_CODE_TYPES = [
  'ERP_ID',
  'PLM_ID',
  'MAIN_SUPPLIERS_ID',
  'PIM_ID',
  'UPC_GTIN_12',
  'EAN_GTIN_13',
  'MARKETPLACE_ID',
  'CATALOG_PROVIDER_ID',
] as const;

const SINGLE_USE: ReadonlySet<string> = new Set(SINGLE_USE_CODE_TYPES);
/** Multi-use types need a caller-chosen positive numeric suffix: `OTHER_ID1`, `ALTERNATIVE_SUPPLIERS_ID2`. */
const MULTI_USE = /^(ALTERNATIVE_SUPPLIERS_ID|OTHER_ID)[1-9][0-9]*$/;

export const isKnownCodeType = (codeId: string): boolean => SINGLE_USE.has(codeId) || MULTI_USE.test(codeId);

/**
 * 400 `invalid_code_ids` for an unknown type, a multi-use type without its suffix, or a type repeated within
 * the product; 400 `codes_not_unique` when another product of the catalogue holds the same value under the type.
 */
export function checkCodes(
  store: CatalogueStore,
  companyId: string,
  codes: readonly ProductCode[],
  selfId?: string,
): void {
  const seen = new Set<string>();
  for (const code of codes) {
    if (!isKnownCodeType(code.codeId)) {
      throw new ApiError(
        400,
        'invalid_code_ids',
        `Unknown code type '${code.codeId}' (multi-use types need a numeric suffix, e.g. OTHER_ID1)`,
      );
    }
    if (seen.has(code.codeId)) {
      throw new ApiError(400, 'invalid_code_ids', `Code type '${code.codeId}' appears more than once`);
    }
    seen.add(code.codeId);
  }
  for (const code of codes) {
    const owner = store.codeOwner(companyId, code);
    if (owner !== undefined && owner !== selfId) {
      throw new ApiError(
        400,
        'codes_not_unique',
        `Code ${code.codeId}=${code.codeValue} is already used by another product`,
      );
    }
  }
}
