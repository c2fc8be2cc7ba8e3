import type { z } from 'zod';

/**
 * A configuration file's zod problems (a mapping file, a profile) as one line an operator can act on: each problem's
 * path, what was given and what is allowed (a bounded list), and for a misspelt key or value the one it most likely
 * meant. Parse with `{ reportInput: true }` so the issues carry the values given.
 */
export function configProblems(schema: z.ZodType, error: z.ZodError, maxProblems = 8): string {
  const problems = error.issues.flatMap((issue) => describeIssue(schema, issue, []));
  const shown = problems.slice(0, maxProblems);
  const more = problems.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '');
}

type Issue = z.core.$ZodIssue & { input?: unknown };
type Segment = PropertyKey;

const MAX_LISTED = 12;

function describeIssue(schema: z.ZodType, issue: Issue, prefix: readonly Segment[]): string[] {
  const at = [...prefix, ...issue.path];
  const where = pathText(at);
  switch (issue.code) {
    case 'invalid_union': {
      if ('discriminator' in issue && 'options' in issue && Array.isArray(issue.options)) {
        // The issue's input is the whole object; the value that picks the branch is its discriminator's.
        const holder = issue.input;
        const value =
          typeof holder === 'object' && holder !== null && typeof issue.discriminator === 'string'
            ? (holder as Record<string, unknown>)[issue.discriminator]
            : undefined;
        return [oneOf(where, value, issue.options.map(String))];
      }
      // A value that fits no branch: the branch it came closest to is the one not refused for its type as a whole.
      const near = issue.errors.filter(
        (branch) => !branch.every((inner) => inner.code === 'invalid_type' && inner.path.length === 0),
      );
      if (near.length === 1 && near[0]) return near[0].flatMap((inner) => describeIssue(schema, inner, at));
      return [`${where}: ${issue.message}`];
    }
    case 'invalid_value': {
      return [oneOf(where, issue.input, issue.values.map(String))];
    }
    case 'unrecognized_keys': {
      const known = knownKeys(schema, at);
      return issue.keys.map((key) => {
        const hint = guess(key, known);
        const fallback = known.length > 0 ? ` (known keys: ${listed(known)})` : '';
        return `${where}: unknown key "${key}"${hint || fallback}`;
      });
    }
    case 'invalid_key': {
      const key = at[at.length - 1];
      const reasons = issue.issues.map((inner) => inner.message).join(', ');
      return [`${pathText(at.slice(0, -1))}: key "${String(key)}" is not valid (${reasons})`];
    }
    case 'invalid_type':
      if (issue.input === undefined) return [`${where}: missing (expected ${issue.expected})`];
      return [`${where}: ${issue.message}`];
    default:
      return [`${where}: ${issue.message}`];
  }
}

function oneOf(where: string, input: unknown, values: readonly string[]): string {
  if (input === undefined) return `${where}: missing (one of ${listed(values)})`;
  return `${where}: ${given(input)} is not one of ${listed(values)}${guess(input, values)}`;
}

function pathText(path: readonly Segment[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

function given(input: unknown): string {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function listed(values: readonly string[]): string {
  const shown = values.slice(0, MAX_LISTED).join(', ');
  const more = values.length - MAX_LISTED;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/** ` (did you mean "x"?)` when a candidate is one or two edits (or only case) away from what was given. */
function guess(input: unknown, candidates: readonly string[]): string {
  if (typeof input !== 'string' || input === '') return '';
  const typed = input.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best === undefined || best.distance > Math.min(2, Math.floor(typed.length / 3))) return '';
  return ` (did you mean "${best.candidate}"?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The parts of zod 4's schema definitions this walk reads. */
interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
  element?: z.core.$ZodType;
  keyType?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  entries?: Record<string, unknown>;
}

function defOf(schema: z.core.$ZodType): Def {
  return schema._zod.def as unknown as Def;
}

/** Optional, default, transform... removed: the schema that reads the value. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

/** The schemas that may read the value at `path` (a union offers each branch). */
function schemasAt(schema: z.core.$ZodType, path: readonly Segment[]): z.core.$ZodType[] {
  const def = defOf(unwrap(schema));
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => schemasAt(option, path));
  if (path.length === 0) return [unwrap(schema)];
  const [head, ...rest] = path;
  if (def.type === 'object') {
    const child = def.shape?.[String(head)];
    return child ? schemasAt(child, rest) : [];
  }
  if (def.type === 'record' && def.valueType) return schemasAt(def.valueType, rest);
  if (def.type === 'array' && def.element) return schemasAt(def.element, rest);
  return [];
}

/** The keys an object (or a record keyed by an enum) at `path` accepts. */
function knownKeys(schema: z.ZodType, path: readonly Segment[]): string[] {
  const keys = new Set<string>();
  for (const found of schemasAt(schema, path)) {
    const def = defOf(found);
    if (def.type === 'object') for (const key of Object.keys(def.shape ?? {})) keys.add(key);
    if (def.type === 'record' && def.keyType) {
      const entries = defOf(unwrap(def.keyType)).entries;
      for (const key of Object.keys(entries ?? {})) keys.add(key);
    }
  }
  return [...keys];
}
