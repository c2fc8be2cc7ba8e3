import { closeMatches, didYouMean } from '../../traceability/name-matching';
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

/**
 * A resolver over a known list of companies (code → id), exact on the code and then case-insensitive;
 * an unknown code gets the three closest codes as suggestions.
 */
export function companyResolverFromDirectory(entries: readonly CompanyDirectoryEntry[]): CompanyResolver {
  const exact = new Map(entries.map((entry) => [entry.code, entry.id]));
  const folded = new Map<string, string[]>();
  for (const entry of entries) {
    const key = entry.code.trim().toLowerCase();
    folded.set(key, [...(folded.get(key) ?? []), entry.id]);
  }
  return (code) => {
    const id = exact.get(code);
    if (id !== undefined) return { id };
    const candidates = folded.get(code.trim().toLowerCase()) ?? [];
    if (candidates.length === 1 && candidates[0] !== undefined) return { id: candidates[0] };
    if (candidates.length > 1)
      return { error: `company code '${code}' matches several companies`, suggestions: [] };
    return { error: `no company has the code '${code}'`, suggestions: closeMatches(code, exact.keys()) };
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
  const suggestions = closeMatches(
    text,
    list.flatMap((process) => [process.name, process.id]),
  );
  return fail(`'${text}' is not a facility process name or id${didYouMean(suggestions)}`);
}
