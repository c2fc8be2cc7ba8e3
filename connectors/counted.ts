/**
 * A count with its noun, as runs, plans and the CLI say them: `1 product`, `3 products`, `-1 day`, `2 BOM lines`.
 * Pure: the workflows import it too.
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${Math.abs(n) === 1 ? one : many}`;
}
