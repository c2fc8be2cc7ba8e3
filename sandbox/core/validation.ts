import type { z } from 'zod';
import { badRequest } from './errors';

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

/** Parses a request body with a zod schema; failures become the spec's 400 envelope with a message naming the field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, code?: string): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw badRequest(describeIssues(result.error.issues), code);
  return result.data;
}
