// An order's buyer and supplier as the mapping gives them (a column, a constant, the caller's own company), and an
// order without one, or whose parties' codes are not the caller's, said in the export's words.
import type { ColumnBinding, MappingProfile } from '../profile';
import type { Problem } from './draft';
import { PARTY_FIELDS, type CompanyRef, type PartyKey } from './fields';

export function constantParty(
  profile: MappingProfile,
  idField: keyof MappingProfile['constants'],
  codeField: keyof MappingProfile['constants'],
): CompanyRef | undefined {
  const id = profile.constants[idField]?.trim();
  if (id) return { id };
  const code = profile.constants[codeField]?.trim();
  return code ? { code } : undefined;
}

export function ownParty(
  profile: MappingProfile,
  key: PartyKey,
  ownCompanyId: string,
): CompanyRef | undefined {
  const own =
    profile.ownCompanyAs === 'buyer'
      ? 'buyerCompanyId'
      : profile.ownCompanyAs === 'supplier'
        ? 'supplierCompanyId'
        : undefined;
  return own === key ? { id: ownCompanyId } : undefined;
}

/**
 * An order without its buyer or supplier, in the export's words: the mapped column left blank, or the column the
 * export lacks, and what gives the party (the column, a constant, `ownCompanyAs`).
 */
export function missingParty(
  key: 'buyerCompanyId' | 'supplierCompanyId',
  binding: ColumnBinding,
  profile: MappingProfile,
): Omit<Problem, 'message'> & { reason: string; named: string } {
  const party = key === 'buyerCompanyId' ? 'buyer' : 'supplier';
  const spec = PARTY_FIELDS.find((candidate) => candidate.key === key) ?? PARTY_FIELDS[0];
  const { codeField, idField } = spec;
  const bound =
    binding.bound[codeField] !== undefined
      ? codeField
      : binding.bound[idField] !== undefined
        ? idField
        : undefined;
  const orOwn =
    profile.ownCompanyAs === 'none' ? `, or ownCompanyAs '${party}' if the ${party} is your company` : '';
  if (bound !== undefined) {
    const what = bound === codeField ? 'company code' : 'company id';
    return {
      code: 'missing_value',
      field: key,
      named: bound,
      column: binding.bound[bound],
      reason: `blank, so the order has no ${party}; give the ${party}'s ${what} there, or a constant ${codeField} in the mapping${orOwn}`,
    };
  }
  const mapped = profile.columns[codeField] ?? profile.columns[idField];
  const lacking =
    mapped === undefined ? 'no column of the export is mapped to it' : `the export has no column '${mapped}'`;
  return {
    code: 'missing_value',
    field: key,
    named: profile.columns[codeField] === undefined && mapped !== undefined ? idField : codeField,
    reason: `${lacking}, so the order has no ${party}; ${mapped === undefined ? 'map a column to it' : 'add that column'} with the ${party}'s company code, or set a constant ${codeField} in the mapping${orOwn}`,
  };
}

/** `column 'buyer_code' 'ACME'`: where an order's party came from and what was written there. */
export function partyWritten(
  key: 'buyerCompanyId' | 'supplierCompanyId',
  cell: { column: string; value: unknown } | undefined,
  profile: MappingProfile,
): string {
  const spec = PARTY_FIELDS.find((candidate) => candidate.key === key) ?? PARTY_FIELDS[0];
  const written = (ref: CompanyRef): string => `'${'code' in ref ? ref.code : ref.id}'`;
  const ref = cell?.value as CompanyRef | undefined;
  if (cell !== undefined && ref !== undefined) return `column '${cell.column}' ${written(ref)}`;
  const constant = constantParty(profile, spec.idField, spec.codeField);
  if (constant !== undefined)
    return `constant ${'code' in constant ? spec.codeField : spec.idField} ${written(constant)}`;
  return `${key === 'buyerCompanyId' ? 'buyer' : 'supplier'}: your company (ownCompanyAs)`;
}

/**
 * What to do with an order neither of whose parties is the caller's company. The caller's own company rarely has a
 * company code of its own to write: where the mapping makes it a party (ownCompanyAs), that party's cell left blank
 * is the way to name it; with ownCompanyAs 'none', its id in an id column the export has, or ownCompanyAs set.
 */
export function notOwnersRemedy(
  profile: MappingProfile,
  cellOf: (key: 'buyerCompanyId' | 'supplierCompanyId') => { column: string } | undefined,
  binding: ColumnBinding,
  ownCompanyId: string,
): string {
  const own = profile.ownCompanyAs;
  const rest = 'correct the code in one of these columns, or leave the order out of the export';
  if (own === 'none') {
    const idColumns = (['buyerCompanyId', 'supplierCompanyId'] as const).flatMap((key) => {
      const column = binding.bound[key];
      return column === undefined ? [] : [`'${column}'`];
    });
    const byId =
      idColumns.length === 0
        ? ''
        : `give your company's id '${ownCompanyId}' in column ${idColumns.join(' or ')}, `;
    return `${byId}set ownCompanyAs 'buyer' or 'supplier' in the mapping and leave that party's cell blank, ${rest}`;
  }
  const column = cellOf(own === 'buyer' ? 'buyerCompanyId' : 'supplierCompanyId')?.column;
  const blank =
    column === undefined
      ? ''
      : `leave column '${column}' blank for your company to be the ${own} (ownCompanyAs '${own}'), `;
  return `${blank}${rest}`;
}
