import type { RowIssue } from './issues';
import type { ProductLevel } from './profiles/schema';

export type { ProductLevel } from './profiles/schema';

/** One material header of a product's composition (spec 02), with its root lines. */
export interface DraftComposition {
  name: string;
  lines: Array<{ material: string; rawMaterialId: string; percentage: number }>;
}

export interface DraftCode {
  codeId: string;
  codeValue: string;
  /** Header of the column the code came from (null for a constant or template). */
  column: string | null;
  rowNumber: number;
}

/** Product fields as the sheet gives them, already converted (ids resolved, numbers parsed). Absent = blank cell. */
export interface DraftFields {
  name?: string;
  codes?: DraftCode[];
  description?: string;
  gender?: string;
  color?: string;
  dimension?: string;
  styleTypeId?: string;
  styleLevelId?: string;
  isComponent?: boolean;
  brands?: string[];
  seasons?: string[];
  collections?: string[];
  departments?: string[];
  suppliers?: string[];
  vendors?: string[];
  claimIntentions?: string[];
  mainSupplier?: string;
  weight?: { unit: string; value: number };
  customProperties?: string;
  /** Goes to the material composition API (document 2), not to the product record. */
  composition?: DraftComposition[];
}
export type DraftFieldName = keyof DraftFields;

export interface FieldOrigin {
  column: string | null;
  rowNumber: number;
}

/** One product as read from the sheet, before validation. */
export interface ProductDraft {
  externalId: string;
  /** From a level column or the flat layout; null when it must be inferred from the parent chain. */
  level: ProductLevel | null;
  parentExternalId: string | null;
  /** Rows that describe this product (several in the flat layout), in sheet order. */
  rowNumbers: number[];
  fields: DraftFields;
  origins: Partial<Record<DraftFieldName, FieldOrigin>>;
  externalIdColumn: string | null;
  parentColumn: string | null;
  /**
   * Flat layout: every row naming this product gives only its key, no data of its own (a fixed rejects
   * file re-run for one SKU, say). Such a product must already exist; it is never written.
   */
  referenceOnly: boolean;
}

export interface MappedSheet {
  drafts: ProductDraft[];
  issues: RowIssue[];
  warnings: string[];
  /** Data rows read (blank rows not counted), skipped ones included. */
  rowCount: number;
  /** Rows the mapping's `skipRows` says hold no product. */
  skippedRows: number;
  /** Column (or template) that feeds each field per level, to name it when the value is missing. */
  fieldColumns: Record<ProductLevel, Partial<Record<DraftFieldName, string>>>;
}

/** Fields each level carries; a value the sheet gives for another level's field is ignored. */
/** Fields every level takes. */
const sharedFields: readonly DraftFieldName[] = [
  'name',
  'codes',
  'description',
  'gender',
  'brands',
  'seasons',
  'collections',
  'departments',
  'suppliers',
  'vendors',
  'claimIntentions',
  'mainSupplier',
  'weight',
  'customProperties',
  'composition',
];

export const levelFields: Record<ProductLevel, ReadonlySet<DraftFieldName>> = {
  style: new Set<DraftFieldName>([...sharedFields, 'styleTypeId', 'styleLevelId', 'isComponent']),
  variant: new Set<DraftFieldName>([...sharedFields, 'color']),
  sku: new Set<DraftFieldName>([...sharedFields, 'color', 'dimension']),
};

/** Fields a variant or SKU inherits from its parent while its own value is null (spec: Inheritance). */
export const inheritableFields: ReadonlySet<DraftFieldName> = new Set<DraftFieldName>([
  'description',
  'gender',
  'brands',
  'departments',
  'seasons',
  'collections',
  'suppliers',
  'mainSupplier',
  'vendors',
  'claimIntentions',
  'weight',
]);
