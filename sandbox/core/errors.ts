import type { z } from 'zod';

/** An API error answered with the spec's error envelope: `statusCode`, stable `code`, readable `message`. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The spec names no code for generic validation failures; the sandbox uses this one (see sandbox/README.md). */
export const VALIDATION_ERROR = 'validation_error';

export const badRequest = (message: string, code = VALIDATION_ERROR): ApiError =>
  new ApiError(400, code, message);
export const notFound = (message: string, code = 'not_found'): ApiError => new ApiError(404, code, message);
export const conflict = (code: string, message: string): ApiError => new ApiError(409, code, message);
export const forbidden = (message: string, code = 'forbidden'): ApiError => new ApiError(403, code, message);

/** Readable summary of zod issues, each naming its field, for example `codes.0.codeValue: Too small`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const keys = issue.keys.map((key) => (path ? `${path}.${key}` : key));
        return `unknown field${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;
      }
      return `${path || 'body'}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Parses a request body with a zod schema; failures become the spec's 400 envelope with a message naming the field.
 * The catalogue and file routes use this wording (README: `codes.0.codeValue: ...`, up to five issues); the BOM,
 * material and order routes use v2-common/body.ts (the first issue, `Field 'lines[1].quantity'`).
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, code?: string): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw badRequest(describeIssues(result.error.issues), code);
  return result.data;
}
