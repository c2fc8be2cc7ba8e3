import { z } from 'zod';
import { AnswerMemo, NameMatcher } from './traceability/name-matching';

/** A company the key sees (GET /companies), by what a cell may name it. */
export const companyEntrySchema = z.object({
  id: z.string().min(1),
  internalCompanyCode: z.string().nullish(),
  name: z.string().nullish(),
  officialName: z.string().nullish(),
});
export type CompanyEntry = z.infer<typeof companyEntrySchema>;

/**
 * How a company code or name matches another once case and surrounding spaces are set aside (the API filter ignores
 * case).
 */
export function foldCompanyCode(code: string): string {
  return code.trim().toLowerCase();
}

/**
 * One way a cell's text may name a company: its id as it stands, its `internalCompanyCode` as it stands, that code
 * with case and surrounding spaces set aside, or its name or official name so folded.
 */
export type CompanyMatchStep = 'id' | 'code' | 'foldedCode' | 'name';

/** What the step that matched compared the text with (the two code steps both compare codes). */
export type CompanyMatchedBy = 'id' | 'code' | 'name';

const STEPS: Record<
  CompanyMatchStep,
  { by: CompanyMatchedBy; fold: boolean; keys: (company: CompanyEntry) => Array<string | null | undefined> }
> = {
  id: { by: 'id', fold: false, keys: (company) => [company.id] },
  code: { by: 'code', fold: false, keys: (company) => [company.internalCompanyCode] },
  foldedCode: { by: 'code', fold: true, keys: (company) => [company.internalCompanyCode] },
  name: { by: 'name', fold: true, keys: (company) => [company.name, company.officialName] },
};

/** A company a text names, and what of it the text is (the first step that matched it). */
export interface CompanyMatch {
  company: CompanyEntry;
  by: CompanyMatchedBy;
}

/** Each connector's own answers: the resolver only decides which companies a text names. */
export interface CompanyWording<A> {
  found(id: string): A;
  /** Several companies, each once: guessing one would send the data to the wrong party. */
  ambiguous(text: string, matches: readonly CompanyMatch[]): A;
  /**
   * No step matches. `suggestions` are the closest codes and names of the steps (ids aside), `known` all of them.
   * Kept per text: a run names the same unknown company on row after row.
   */
  unknown(text: string, suggestions: string[], known: readonly string[]): A;
}

/**
 * How the steps decide. 'firstStep': the first step under which some company matches decides. 'acrossSteps': a
 * company id, or the exact code of one company, decides; otherwise every company any step matches counts, so a text
 * that is one company's code with case set aside and another's name is refused rather than given to the first.
 */
export type CompanyStepRule = 'firstStep' | 'acrossSteps';

const DECISIVE: ReadonlySet<CompanyMatchStep> = new Set(['id', 'code']);

/**
 * A resolver over the companies the key sees: the text goes through `steps` in order, `rule` saying which matches
 * decide (one company, or several sharing one id: found; more: ambiguous).
 */
export function companyResolver<A>(
  companies: readonly CompanyEntry[],
  steps: readonly CompanyMatchStep[],
  wording: CompanyWording<A>,
  rule: CompanyStepRule = 'firstStep',
): (text: string) => A {
  const indexes = steps.map((step) => {
    const { by, fold, keys } = STEPS[step];
    const index = new Map<string, CompanyEntry[]>();
    for (const company of companies)
      for (const key of keys(company)) {
        if (!key) continue;
        const folded = fold ? foldCompanyCode(key) : key;
        const list = index.get(folded);
        if (list === undefined) index.set(folded, [company]);
        else if (!list.includes(company)) list.push(company);
      }
    return { step, by, fold, index };
  });
  // Built on the first unknown text.
  let known: string[] | undefined;
  let matcher: NameMatcher | undefined;
  const unknown = new AnswerMemo<A>();
  const answer = (text: string, matches: CompanyMatch[]): A => {
    const [first] = matches;
    if (first !== undefined && matches.every(({ company }) => company.id === first.company.id))
      return wording.found(first.company.id);
    return wording.ambiguous(text, matches);
  };
  return (text) => {
    const matches: CompanyMatch[] = [];
    for (const { step, by, fold, index } of indexes) {
      const found = index.get(fold ? foldCompanyCode(text) : text);
      if (found === undefined) continue;
      if (rule === 'firstStep')
        return answer(
          text,
          found.map((company) => ({ company, by })),
        );
      const [one] = found;
      if (DECISIVE.has(step) && one !== undefined && found.every((company) => company.id === one.id))
        return wording.found(one.id);
      for (const company of found)
        if (!matches.some((match) => match.company.id === company.id)) matches.push({ company, by });
    }
    if (matches.length > 0) return answer(text, matches);
    return unknown.get(text, () => {
      known ??= companies.flatMap((company) =>
        steps
          .filter((step) => step !== 'id')
          .flatMap((step) => STEPS[step].keys(company))
          .filter((key): key is string => !!key),
      );
      matcher ??= new NameMatcher(known);
      return wording.unknown(text, matcher.closeMatches(text), known);
    });
  };
}
