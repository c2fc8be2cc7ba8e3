import type { ReferenceResolution } from './references';

/**
 * Unresolved names of one list cell told one issue each; past them one issue says how many more and names a few (a
 * 32,767-character cell can list thousands of names).
 */
const TOLD_UNRESOLVED = 5;
const NAMED_MORE_UNRESOLVED = 3;

type Failure = Extract<ReferenceResolution, { ok: false }>;

/** "12 more brand names in this cell are unknown or ambiguous: 'a', 'b', 'c' and 9 others". */
function moreUnresolved(label: string, count: number, named: readonly string[]): string {
  const more = count - TOLD_UNRESOLVED;
  const names = named.map((name) => `'${name.length > 40 ? `${name.slice(0, 40)}...` : name}'`);
  const others = more - names.length;
  return (
    `${more} more ${label} names in this cell are unknown or ambiguous: ${names.join(', ')}` +
    (others > 0 ? ` and ${others} others` : '')
  );
}

/**
 * One cell's names to ids: `ids` when every name resolved (two names of one id are that id once), else undefined;
 * `failures` tells the first few unresolved names one by one and the rest in one line.
 */
export function resolveNames(
  names: readonly string[],
  resolve: (name: string) => ReferenceResolution,
  label: string,
): { ids: string[] | undefined; failures: Array<Pick<Failure, 'code' | 'reason'>> } {
  const ids: string[] = [];
  const failures: Array<Pick<Failure, 'code' | 'reason'>> = [];
  let count = 0;
  let moreCode: Failure['code'] = 'unknown_reference';
  const named: string[] = [];
  for (const name of names) {
    const resolved = resolve(name);
    if (resolved.ok) ids.push(resolved.id);
    else if (++count <= TOLD_UNRESOLVED) failures.push({ code: resolved.code, reason: resolved.reason });
    else {
      if (count === TOLD_UNRESOLVED + 1) moreCode = resolved.code;
      if (named.length < NAMED_MORE_UNRESOLVED) named.push(name);
    }
  }
  if (count > TOLD_UNRESOLVED) failures.push({ code: moreCode, reason: moreUnresolved(label, count, named) });
  if (count > 0) return { ids: undefined, failures };
  return { ids: ids.length > 1 ? [...new Set(ids)] : ids, failures };
}
