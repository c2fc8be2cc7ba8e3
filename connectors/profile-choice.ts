// A job's mapping is one built-in profile or one mapping file. Imported by workflow code (the input checks) and by
// the jobs' own loaders, so that every place refuses both in the same words: deterministic, no Node built-ins.

/** What a run given both `profile` and `mappingFile` fails with (they exclude each other); undefined: not both. */
export function profileChoiceProblem(input: {
  profile?: string | undefined;
  mappingFile?: string | undefined;
}): string | undefined {
  return input.profile !== undefined && input.mappingFile !== undefined
    ? 'give either profile or mappingFile, not both'
    : undefined;
}
