import { companyResolver, type CompanyEntry, type CompanyWording } from '../../companies';
import { listSome, quoteInput } from '../../input-limits';
import { didYouMean } from '../../traceability/name-matching';
import type { SheetRow } from '../read/sheet';
import { readSource, type BoundLevel } from './bind';
import type { ReferenceResolution } from './references';
import { cellText, splitList } from './values';

/** Reads every company the key sees (an API call): `CompanyCells` calls it only for a non-empty cell. */
export type LoadCompanies = () => Promise<CompanyEntry[]>;

/** Draft fields that hold company ids (spec 01: "array of string (company ids)", "string (company id)"). */
export const COMPANY_FIELDS = ['suppliers', 'vendors', 'mainSupplier'] as const;

function describe(company: CompanyEntry): string {
  const said = [company.name, company.internalCompanyCode]
    .filter((text): text is string => !!text)
    .map((text) => quoteInput(text, 60));
  return `'${quoteInput(company.id, 60)}'${said.length > 0 ? ` (${said.join(', ')})` : ''}`;
}

const byCell: CompanyWording<ReferenceResolution> = {
  found: (id) => ({ ok: true, id }),
  ambiguous: (text, matches) => {
    const [first] = matches;
    const what =
      first !== undefined && matches.every(({ by }) => by === first.by)
        ? `the ${first.by} of ${matches.length} companies the key sees (${listSome(matches.map(({ company }) => describe(company)))})`
        : listSome(matches.map(({ by, company }) => `the ${by} of ${describe(company)}`));
    return {
      ok: false,
      code: 'ambiguous_reference',
      reason: `company '${text}' is ambiguous: it is ${what}; give the id of the one you mean instead`,
    };
  },
  unknown: (text, suggestions, known) => ({
    ok: false,
    code: 'unknown_reference',
    reason: `unknown company '${text}': no company the key sees has it as its id, code, name or official name${didYouMean(suggestions, known)}`,
  }),
};

/**
 * A cell's text to the company id it means: a company id the key sees as it stands; else the company whose
 * `internalCompanyCode` is the text (exact, else with case set aside); else the one whose name or official name is the
 * text, case set aside. A text that names two companies (at one step, or one by its code and the other by its name)
 * is refused, naming both, unless it is a company id or the exact code of one company: guessing one would put the
 * product under the wrong supplier.
 */
export class CompanyResolver {
  private readonly resolver: (text: string) => ReferenceResolution;

  constructor(companies: readonly CompanyEntry[]) {
    this.resolver = companyResolver(companies, ['id', 'code', 'foldedCode', 'name'], byCell, 'acrossSteps');
  }

  resolve(text: string): ReferenceResolution {
    return this.resolver(text);
  }
}

/**
 * The supplier, vendor and main-supplier cells of one sheet. Without a loader they stay as the sheet gives them; with
 * one, the companies are read once, before the first row with a non-empty company cell (a sheet without one reads
 * none), so each row's cells are company ids before a flat style's rows are compared.
 */
export class CompanyCells {
  private resolver: CompanyResolver | undefined;

  constructor(private readonly load?: LoadCompanies) {}

  /** Reads the companies before the first row of `levels` that gives a company cell. */
  preparer(levels: readonly BoundLevel[]): (row: SheetRow) => Promise<void> {
    const sources = levels.flatMap((level) =>
      level.fields.filter(([field]) => (COMPANY_FIELDS as readonly string[]).includes(field)),
    );
    return async (row) => {
      if (this.load === undefined || this.resolver !== undefined) return;
      const given = sources.some(([field, source]) => {
        const read = readSource(source, row);
        const text = read.cellError ? null : cellText(read.value);
        return text !== null && (field === 'mainSupplier' || splitList(text, source.split ?? ';').length > 0);
      });
      if (given) this.resolver = new CompanyResolver(await this.load());
    };
  }

  resolve(text: string): ReferenceResolution {
    return this.resolver?.resolve(text) ?? { ok: true, id: text };
  }
}
