/**
 * Code types a product may carry at most once (spec 01, "Code types"). The sandbox's codes.ts keeps its own list on
 * purpose: it is the oracle the connectors are tested against, so it shares no code with them.
 */
export const singleUseCodeTypes: ReadonlySet<string> = new Set([
  'ERP_ID',
  'PLM_ID',
  'MAIN_SUPPLIERS_ID',
  'PIM_ID',
  'UPC_GTIN_12',
  'EAN_GTIN_13',
  'MARKETPLACE_ID',
  'CATALOG_PROVIDER_ID',
]);

/** Multi-use code types: the caller assigns a numeric suffix, e.g. OTHER_ID1. */
export const multiUseCodePrefixes = ['ALTERNATIVE_SUPPLIERS_ID', 'OTHER_ID'] as const;

const MULTI_USE = /^(ALTERNATIVE_SUPPLIERS_ID|OTHER_ID)(\d*)$/;

export type CodeTypeCheck = { ok: true } | { ok: false; reason: string };

export function checkCodeType(codeId: string): CodeTypeCheck {
  if (singleUseCodeTypes.has(codeId)) return { ok: true };
  const multi = MULTI_USE.exec(codeId);
  if (multi) {
    return multi[2]
      ? { ok: true }
      : { ok: false, reason: `code type ${codeId} needs a numeric suffix, e.g. ${codeId}1` };
  }
  return {
    ok: false,
    reason: `unknown code type '${codeId}' (known: ${[...singleUseCodeTypes].join(', ')}, ALTERNATIVE_SUPPLIERS_ID<N>, OTHER_ID<N>)`,
  };
}

/** The code type a column header names (PLM_ID, ean_gtin_13, OTHER_ID2, even a bare OTHER_ID), or null. */
export function codeTypeOfHeader(header: string): string | null {
  const upper = header.trim().toUpperCase();
  if (singleUseCodeTypes.has(upper) || MULTI_USE.test(upper)) return upper;
  return null;
}
