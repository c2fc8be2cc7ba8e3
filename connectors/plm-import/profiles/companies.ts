import { companyResolver, type CompanyEntry, type CompanyWording } from '../../companies';
import { didYouMean } from '../../traceability/name-matching';
import type { ProductDraft } from '../draft';
import { rowIssue, type RowIssue } from '../issues';
import { resolveNames } from './resolve-names';
import type { ReferenceResolution } from './references';

/** Reads every company the key sees (an API call): `resolveCompanyCells` calls it only for a non-empty cell. */
export type LoadCompanies = () => Promise<CompanyEntry[]>;

/** Draft fields that hold company ids (spec 01: "array of string (company ids)", "string (company id)"). */
export const COMPANY_FIELDS = ['suppliers', 'vendors', 'mainSupplier'] as const;

function describe(company: CompanyEntry): string {
  const said = [company.name, company.internalCompanyCode].filter((text): text is string => !!text);
  return `'${company.id}'${said.length > 0 ? ` (${said.join(', ')})` : ''}`;
}

const byCell: CompanyWording<ReferenceResolution> = {
  found: (id) => ({ ok: true, id }),
  ambiguous: (text, by, found) => ({
    ok: false,
    code: 'ambiguous_reference',
    reason: `company '${text}' is ambiguous: it is the ${by} of ${found.length} companies the key sees (${found.map(describe).join(', ')}); give the id of the one you mean instead`,
  }),
  unknown: (text, suggestions, known) => ({
    ok: false,
    code: 'unknown_reference',
    reason: `unknown company '${text}': no company the key sees has it as its id, code, name or official name${didYouMean(suggestions, known)}`,
  }),
};

/**
 * A cell's text to the company id it means: a company id the key sees as it stands; else the company whose
 * `internalCompanyCode` is the text (exact, else with case set aside); else the one whose name or official name is the
 * text, case set aside. Two companies at the first step that matches are refused, naming both: guessing one would
 * put the product under the wrong supplier.
 */
export class CompanyResolver {
  private readonly resolver: (text: string) => ReferenceResolution;

  constructor(companies: readonly CompanyEntry[]) {
    this.resolver = companyResolver(companies, ['id', 'code', 'foldedCode', 'name'], byCell);
  }

  resolve(text: string): ReferenceResolution {
    return this.resolver(text);
  }
}

/**
 * Resolves the drafts' supplier, vendor and main-supplier cells to company ids in place; a cell that does not
 * resolve loses its field and gives its row an issue. The companies are read once, and only when a cell is given.
 */
export async function resolveCompanyCells(
  drafts: Iterable<ProductDraft>,
  load: LoadCompanies,
): Promise<RowIssue[]> {
  const given = [...drafts].filter((draft) =>
    COMPANY_FIELDS.some((field) => draft.fields[field] !== undefined),
  );
  if (given.length === 0) return [];
  const resolver = new CompanyResolver(await load());
  const issues: RowIssue[] = [];
  for (const draft of given) {
    for (const field of COMPANY_FIELDS) {
      const value = draft.fields[field];
      if (value === undefined) continue;
      const { ids, failures } = resolveNames(
        typeof value === 'string' ? [value] : value,
        (text) => resolver.resolve(text),
        'company',
      );
      const origin = draft.origins[field];
      const rowNumber = origin?.rowNumber ?? draft.rowNumbers[0] ?? 0;
      for (const failure of failures)
        issues.push(
          rowIssue(rowNumber, origin?.column ?? null, failure.code, failure.reason, draft.externalId),
        );
      if (ids === undefined) {
        delete draft.fields[field];
        delete draft.origins[field];
      } else if (field === 'mainSupplier') draft.fields.mainSupplier = ids[0] ?? '';
      else draft.fields[field] = ids;
    }
  }
  return issues;
}
