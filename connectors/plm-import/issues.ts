/** Stable machine codes for a bad row; operators and the rejects file branch on these, never on messages. */
export const rowIssueCodes = [
  'missing_required',
  'too_long',
  'invalid_code_type',
  'duplicate_code_type',
  'duplicate_code_value',
  'duplicate_external_id',
  'missing_parent',
  'cyclic_parent',
  'parent_level_mismatch',
  'invalid_parent',
  'invalid_level',
  'conflicting_values',
  'unknown_reference',
  'ambiguous_reference',
  'bad_number',
  'bad_boolean',
  'bad_unit',
  'bad_date',
  'bad_composition',
  'bad_code',
  'cell_error',
  'immutable_field_changed',
  'archived_product',
  'unknown_option',
  'code_giver_rejected',
] as const;
export type RowIssueCode = (typeof rowIssueCodes)[number];

/** One reason a row cannot be imported. `column` is the sheet's header text, or null for a whole-row reason. */
export interface RowIssue {
  rowNumber: number;
  column: string | null;
  code: RowIssueCode;
  message: string;
  /** The product the issue is about, when one could be identified. */
  externalId?: string;
  /**
   * The catalogue key `externalId` differs from only in case: the product the row means, which a retry of the fixed
   * row writes (retry-scope.ts).
   */
  meantKey?: string;
}

export function rowIssue(
  rowNumber: number,
  column: string | null,
  code: RowIssueCode,
  reason: string,
  externalId?: string,
): RowIssue {
  const where = column === null ? `row ${rowNumber}` : `row ${rowNumber}, column '${column}'`;
  const issue: RowIssue = { rowNumber, column, code, message: `${where}: ${reason}` };
  if (externalId !== undefined) issue.externalId = externalId;
  return issue;
}

/** A key and another product's differing only in case, at one level: what caseTwinIssue compares. */
export function caseFoldedKey(level: string, externalId: string): string {
  return `${level}\u0000${externalId.toLowerCase()}`;
}

/**
 * A key that differs only in case from another product's at its level (`twin`: that product, said). Spec 01 compares
 * externalIds as given, so it would be a second product beside the one the user meant.
 */
export function caseTwinIssue(
  at: { rowNumber: number; column: string | null; level: string; externalId: string },
  twin: string,
  writeAs: string,
): RowIssue {
  const { level, externalId } = at;
  return rowIssue(
    at.rowNumber,
    at.column,
    'duplicate_external_id',
    `${level} key '${externalId}' differs only in case from ${twin}; the API tells keys apart by case, so this would create another ${level}: write it as ${writeAs}`,
    externalId,
  );
}

/** The same issue on another row of its product (the flat layout spreads one product over several rows). */
export function onRow<T extends { rowNumber: number; message: string }>(issue: T, rowNumber: number): T {
  return { ...issue, rowNumber, message: issue.message.replace(/^row \d+/, `row ${rowNumber}`) };
}

export const fileErrorCodes = [
  'file_not_found',
  'empty_file',
  'file_too_large',
  'expanded_too_large',
  'too_many_rows',
  'not_a_spreadsheet',
  'unsupported_format',
  'bad_encoding',
  'no_header_row',
  'duplicate_headers',
  'missing_columns',
  'no_data_rows',
  'sheet_not_found',
  // Input limits shared with the ERP order push (connectors/input-limits.ts).
  'too_many_columns',
  'header_too_long',
  'line_too_long',
  'cell_too_long',
  'nul_byte',
  'unbalanced_quote',
  'password_protected',
  'read_timeout',
  'too_many_merged_cells',
] as const;
export type FileErrorCode = (typeof fileErrorCodes)[number];

/** The whole file cannot be read: nothing from it is imported. The message says what to do. */
export class PlmFileError extends Error {
  override readonly name = 'PlmFileError';
  constructor(
    readonly code: FileErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Groups issues by a key (row number, product), each group in the order found; an undefined key is left out. */
export function groupIssues<T, K>(issues: readonly T[], keyOf: (issue: T) => K | undefined): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const issue of issues) {
    const key = keyOf(issue);
    if (key === undefined) continue;
    const list = groups.get(key);
    if (list) list.push(issue);
    else groups.set(key, [issue]);
  }
  return groups;
}

/** What becomes of a rejected product's new parents, for one parent and for several, as planned and as done. */
const NEW_PARENTS_FATE = {
  planned: { one: 'is still created', many: 'are still created' },
  done: { one: 'was created by this run and stays', many: 'were created by this run and stay' },
} as const;

/**
 * What a rejected product's row says of its new parents (nearest first), which are products of their own: `planned`,
 * `; its new parent 'S' is still created, without 'S-V'`; `done`, `... was created by this run and stays, without ...`.
 */
export function newParentsNote(
  created: readonly string[],
  externalId: string,
  when: keyof typeof NEW_PARENTS_FATE,
): string {
  if (created.length === 0) return '';
  const parents = created.map((id) => `'${id}'`).join(' and ');
  const [noun, fate] =
    created.length > 1 ? ['parents', NEW_PARENTS_FATE[when].many] : ['parent', NEW_PARENTS_FATE[when].one];
  return `; its new ${noun} ${parents} ${fate}, without '${externalId}'`;
}
