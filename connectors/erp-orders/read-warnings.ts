/** The warnings from reading an export that a run keeps (they travel in workflow payloads): the first ones. */
export const READ_WARNINGS_KEPT = 20;

/** The line that stands for the warnings from reading an export past the first ones, or none. */
export function moreReadWarnings(leftOut: number | undefined): string[] {
  return leftOut !== undefined && leftOut > 0
    ? [`and ${leftOut} more warnings reading the export (the first ${READ_WARNINGS_KEPT} are listed)`]
    : [];
}
