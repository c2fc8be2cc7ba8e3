/**
 * A trace-sync command line as the CLI and the runs' details tell an operator to type it: `npx trace-sync watch <id>`.
 * `npx` because the README's setup is a clone with no global install, where a bare `trace-sync` is not found; with a
 * global install it runs that. Pure: the workflows import it too.
 */
export function cliCommand(...words: string[]): string {
  return ['npx trace-sync', ...words].join(' ');
}
