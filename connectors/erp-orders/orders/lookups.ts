import { companyResolver, type CompanyEntry, type CompanyWording } from '../../companies';
import { listSome, quoteInput } from '../../input-limits';
import { didYouMean, matcherOf } from '../../traceability/name-matching';
import { fail, ok, type Parsed } from '../cell-values';

/** Maps an external company code to a platform company id (the activity builds it from GET /companies). */
export type CompanyResolution = { id: string } | { error: string; suggestions: string[] };
export type CompanyResolver = (code: string) => CompanyResolution;

/** GET /facility-processes, every page: ids and display names. */
export type FacilityProcessList = ReadonlyArray<{ id: string; name: string }>;

export interface CompanyDirectoryEntry {
  id: string;
  code: string;
  name?: string | undefined;
}

function describeCompanies(entries: readonly CompanyEntry[]): string {
  return listSome(
    entries.map((entry) =>
      entry.name ? `${quoteInput(entry.id, 60)} (${quoteInput(entry.name, 60)})` : quoteInput(entry.id, 60),
    ),
  );
}

const byCode: CompanyWording<CompanyResolution> = {
  found: (id) => ({ id }),
  ambiguous: (code, matches) => ({
    error:
      `company code '${code}' is the code of ${matches.length} companies: ${describeCompanies(matches.map((match) => match.company))}; ` +
      'give the company id instead, or make the codes unique on the platform',
    suggestions: [],
  }),
  unknown: (code, suggestions) => ({ error: `no company has the code '${code}'`, suggestions }),
};

/**
 * A resolver over a known list of companies (code → id), exact on the code and then case-insensitive; an unknown
 * code gets the three closest codes as suggestions. A code that names several companies (exactly, or only with case
 * set aside) is refused, naming them: guessing one would send the order to the wrong party.
 */
export function companyResolverFromDirectory(entries: readonly CompanyDirectoryEntry[]): CompanyResolver {
  const byId = new Map(
    entries.map((entry) => [entry.id, { id: entry.id, internalCompanyCode: entry.code, name: entry.name }]),
  );
  const resolve = companyResolver([...byId.values()], ['code', 'foldedCode'], byCode);
  return (code) => {
    const resolution = resolve(code);
    // The unknown answer is kept for the next row naming the code: hand out a copy the caller may change.
    return 'id' in resolution
      ? resolution
      : { error: resolution.error, suggestions: [...resolution.suggestions] };
  };
}

/** The message for an unknown company code, with the resolver's suggestions. */
export function resolveCompanyCode(resolver: CompanyResolver, code: string): Parsed<string> {
  const resolution = resolver(code);
  if ('id' in resolution) return ok(resolution.id);
  return fail(`${resolution.error}${didYouMean(resolution.suggestions)}`);
}

/**
 * A facility process given by id (exact) or display name (case-insensitive, spaces trimmed) → its id.
 * An unknown value gets the closest names and ids as suggestions.
 */
export function resolveFacilityProcess(list: FacilityProcessList, value: string): Parsed<string> {
  const text = value.trim();
  const byId = list.find((process) => process.id === text);
  if (byId) return ok(byId.id);
  const lower = text.toLowerCase();
  const byName = list.filter(
    (process) => process.name.trim().toLowerCase() === lower || process.id.toLowerCase() === lower,
  );
  const first = byName[0];
  if (first && byName.every((process) => process.id === first.id)) return ok(first.id);
  if (byName.length > 1)
    return fail(`facility process '${text}' names several processes: ${byName.map((p) => p.id).join(', ')}`);
  const suggestions = matcherOf(list, () =>
    list.flatMap((process) => [process.name, process.id]),
  ).closeMatches(text);
  return fail(`'${text}' is not a facility process name or id${didYouMean(suggestions)}`);
}
