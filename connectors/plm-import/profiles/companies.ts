import { z } from 'zod';
import { foldCompanyCode } from '../../erp-orders/orders/lookups';
import { AnswerMemo, didYouMean, NameMatcher } from '../../traceability/name-matching';
import type { ProductDraft } from '../draft';
import { rowIssue, type RowIssue } from '../issues';
import { resolveNames } from './resolve-names';
import type { ReferenceResolution } from './references';

/** A company the key sees (GET /companies): what a supplier, vendor or main-supplier cell may name it by. */
export const companyEntrySchema = z.object({
  id: z.string().min(1),
  internalCompanyCode: z.string().nullish(),
  name: z.string().nullish(),
  officialName: z.string().nullish(),
});
export type CompanyEntry = z.infer<typeof companyEntrySchema>;

/** Reads every company the key sees (an API call): `resolveCompanyCells` calls it only for a non-empty cell. */
export type LoadCompanies = () => Promise<CompanyEntry[]>;

/** Draft fields that hold company ids (spec 01: "array of string (company ids)", "string (company id)"). */
export const COMPANY_FIELDS = ['suppliers', 'vendors', 'mainSupplier'] as const;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

function describe(company: CompanyEntry): string {
  const said = [company.name, company.internalCompanyCode].filter((text): text is string => !!text);
  return `'${company.id}'${said.length > 0 ? ` (${said.join(', ')})` : ''}`;
}

/**
 * A cell's text to the company id it means: a company id the key sees as it stands; else the company whose
 * `internalCompanyCode` is the text (exact, else with case set aside); else the one whose name or official name is the
 * text, case set aside. Two companies at the first step that matches are refused, naming both: guessing one would
 * put the product under the wrong supplier.
 */
export class CompanyResolver {
  private readonly ids = new Set<string>();
  private readonly codes = new Map<string, CompanyEntry[]>();
  private readonly foldedCodes = new Map<string, CompanyEntry[]>();
  private readonly names = new Map<string, CompanyEntry[]>();
  private readonly failures = new AnswerMemo<ReferenceResolution>();
  private matcher?: NameMatcher;

  constructor(private readonly companies: readonly CompanyEntry[]) {
    for (const company of companies) {
      this.ids.add(company.id);
      if (company.internalCompanyCode) {
        push(this.codes, company.internalCompanyCode, company);
        push(this.foldedCodes, foldCompanyCode(company.internalCompanyCode), company);
      }
      for (const name of [company.name, company.officialName])
        if (name) push(this.names, foldCompanyCode(name), company);
    }
  }

  resolve(text: string): ReferenceResolution {
    if (this.ids.has(text)) return { ok: true, id: text };
    const folded = foldCompanyCode(text);
    const steps: Array<[string, CompanyEntry[] | undefined]> = [
      ['code', this.codes.get(text)],
      ['code', this.foldedCodes.get(folded)],
      ['name', this.names.get(folded)],
    ];
    for (const [what, found] of steps) {
      if (found === undefined) continue;
      const [only] = found;
      if (found.length === 1 && only !== undefined) return { ok: true, id: only.id };
      return {
        ok: false,
        code: 'ambiguous_reference',
        reason: `company '${text}' is ambiguous: it is the ${what} of ${found.length} companies the key sees (${found.map(describe).join(', ')}); give the id of the one you mean instead`,
      };
    }
    return this.failures.get(text, () => {
      const known = this.companies.flatMap((company) =>
        [company.internalCompanyCode, company.name, company.officialName].filter(
          (said): said is string => !!said,
        ),
      );
      this.matcher ??= new NameMatcher(known);
      return {
        ok: false,
        code: 'unknown_reference',
        reason: `unknown company '${text}': no company the key sees has it as its id, code, name or official name${didYouMean(this.matcher.closeMatches(text), known)}`,
      };
    });
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
