import type { z } from 'zod';
import { badRequest } from '../../core/errors';

/** Names the offending field the way a client would write it: `lines[1].quantity`. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(body)';
}

/** Parses a request body with `schema`; the first zod issue becomes a 400 naming the field. */
export function parseBody<T extends z.ZodType>(
  schema: T,
  body: unknown,
  prefix: readonly PropertyKey[] = [],
): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw badRequest('Invalid request body');
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const base = path.length > 0 ? `${fieldPath(path)}.` : '';
    throw badRequest(`Unknown field(s): ${issue.keys.map((key) => base + key).join(', ')}`);
  }
  throw badRequest(`Field '${fieldPath(path)}': ${issue.message}`);
}

/** True when the key is present in the raw JSON body (distinguishes "sent as null" from "omitted"). */
export function sent(body: unknown, key: string): boolean {
  return typeof body === 'object' && body !== null && Object.prototype.hasOwnProperty.call(body, key);
}
