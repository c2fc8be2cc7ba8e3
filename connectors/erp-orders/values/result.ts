/** The outcome of reading one cell: a value, or the reason it cannot be used (said to a person fixing the file). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <T = never>(reason: string): Parsed<T> => ({ ok: false, reason });
