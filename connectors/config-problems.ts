import { z } from 'zod';
import { counted } from './counted';

/**
 * A configuration file's zod problems (a mapping file, a profile) as one line an operator can act on: each problem's
 * path, what was given and what is allowed (a bounded list), and for a misspelt key or value the one it most likely
 * meant. Parse with `{ reportInput: true }` so the issues carry the values given.
 */
export function configProblems(schema: z.ZodType, error: z.ZodError, maxProblems = 8): string {
  return problemLine({ schema, top: '(top level)' }, error, maxProblems);
}

/**
 * Text a configuration file names (a column, a code type, a sheet) that may not be only blanks, refused in the words
 * configProblems prints (`got "  ": a column name cannot be only blanks`). A pattern, unlike trim().min(1), is in the
 * published JSON Schema, so an editor refuses "  " as the job does.
 */
export const notBlank = (what: string) => z.string().regex(/\S/, `${what} cannot be only blanks`);

/**
 * A job's input (the plain JSON an operator types in the Web UI, a schedule's input) refused by its schema, read as
 * configProblems reads a mapping file: `unknown key "fiel" (did you mean "file"?); batchSize: got 5000, expected at
 * most 1000`. Bounded however large the input, and a value that looks like a secret (a URL with credentials, a
 * token-like string, anything under a key named like one) is never shown. Parse with `{ reportInput: true }`.
 * Workflow code imports this module: it stays deterministic and free of Node built-ins.
 */
export function inputProblems(schema: z.ZodType, error: z.ZodError, maxProblems = 6): string {
  return problemLine({ schema, top: '' }, error, maxProblems);
}

interface Walk {
  schema: z.ZodType;
  /** What the value as a whole is called; empty: the problem stands without a prefix. */
  top: string;
}

function problemLine(walk: Walk, error: z.ZodError, maxProblems: number): string {
  const problems: string[] = [];
  let total = 0;
  for (const issue of error.issues) {
    const described = describeIssue(walk, issue, []);
    total += described.length;
    for (const problem of described) if (problems.length < maxProblems) problems.push(bounded(problem));
  }
  const more = total - problems.length;
  return problems.join('; ') + (more > 0 ? `; and ${counted(more, 'more problem')}` : '');
}

type Issue = z.core.$ZodIssue & { input?: unknown };
type Segment = PropertyKey;

const MAX_LISTED = 12;
const MAX_PROBLEM = 240;
const MAX_SEGMENT = 40;

function describeIssue(walk: Walk, issue: Issue, prefix: readonly Segment[]): string[] {
  const at = [...prefix, ...issue.path];
  const where = (text: string) => located(walk, at, text);
  const input = hidden(at) ? SECRET : issue.input;
  switch (issue.code) {
    case 'invalid_union': {
      if ('discriminator' in issue && 'options' in issue && Array.isArray(issue.options)) {
        // The issue's input is the whole object; the value that picks the branch is its discriminator's.
        const holder = issue.input;
        const value =
          typeof holder === 'object' && holder !== null && typeof issue.discriminator === 'string'
            ? (holder as Record<string, unknown>)[issue.discriminator]
            : undefined;
        return [where(oneOf(value, issue.options.map(String)))];
      }
      // A value that fits no branch: the branch it came closest to is the one not refused for its type as a whole
      // (`true` refused by an object branch, `{}` by a `true` one).
      const near = issue.errors.filter(
        (branch) =>
          !branch.every(
            (inner) =>
              (inner.code === 'invalid_type' || inner.code === 'invalid_value') && inner.path.length === 0,
          ),
      );
      if (near.length === 1 && near[0]) return near[0].flatMap((inner) => describeIssue(walk, inner, at));
      return [where(`got ${given(input)}, ${issue.message}`)];
    }
    case 'invalid_value':
      return [where(oneOf(input, issue.values.map(String)))];
    case 'unrecognized_keys': {
      // A misspelt key gets its own "did you mean"; the rest are named together, with the keys known there once.
      const known = knownKeys(walk.schema, at);
      const guessed = issue.keys.flatMap((key) => {
        const hint = guess(key, known);
        return hint ? [where(`unknown key ${keyText(key)}${hint}`)] : [];
      });
      const others = issue.keys.filter((key) => !guess(key, known));
      if (others.length === 0) return guessed;
      const names = listed(others.map(keyText), 5);
      const fallback =
        known.length > 0
          ? ` (known keys: ${listed(known)})`
          : takesNoKeys(walk.schema, at)
            ? ' (it takes no keys: give {})'
            : '';
      return [...guessed, where(`unknown key${others.length === 1 ? '' : 's'} ${names}${fallback}`)];
    }
    case 'invalid_key': {
      const key = at[at.length - 1];
      const reasons = issue.issues.map((inner) => inner.message).join(', ');
      return [located(walk, at.slice(0, -1), `key ${keyText(String(key))} is not valid (${reasons})`)];
    }
    case 'invalid_type':
      if (input === undefined) return [where(`missing (expected ${typeWords(issue.expected)})`)];
      return [where(`got ${given(input)}, expected ${typeWords(issue.expected)}`)];
    case 'too_small':
    case 'too_big':
      return [where(`got ${given(input)}, expected ${sizeWords(issue)}`)];
    case 'invalid_format':
      return [where(gotThen(input, issue.format === 'regex' ? issue.message : `expected ${issue.format}`))];
    case 'custom':
      return [where(gotThen(input, issue.message))];
    default:
      return [where(issue.message)];
  }
}

/**
 * A check's own message with the value it read: `got "a b": use letters…`. A message that quotes the value itself
 * (`asOf '22/11/2026' must be…`) has it bounded and a secret-looking one withheld in place.
 */
function gotThen(input: unknown, message: string): string {
  if (typeof input === 'string' && input.length >= 3 && message.includes(input)) {
    return message.split(input).join(secretLooking(input) ? 'a value not shown here' : clipped(input, 60));
  }
  if (!scalar(input)) return message;
  return `got ${given(input)}${message.startsWith('expected') ? ', ' : ': '}${message}`;
}

function oneOf(input: unknown, values: readonly string[]): string {
  if (input === undefined) return `missing (one of ${listed(values)})`;
  return `${given(input)} is not one of ${listed(values)}${input === SECRET ? '' : guess(input, values)}`;
}

function located(walk: Walk, path: readonly Segment[], text: string): string {
  if (path.length === 0) return walk.top === '' ? text : `${walk.top}: ${text}`;
  return `${pathText(path)}: ${text}`;
}

function pathText(path: readonly Segment[]): string {
  return path.map((segment) => clipped(String(segment), MAX_SEGMENT)).join('.');
}

/**
 * Free text someone typed (a signal's `by`) fit to show in a run's details or log: clipped to `max` characters, or
 * undefined when it looks like a credential (as a value inputProblems withholds).
 */
export function shownText(text: string, max = 60): string | undefined {
  return secretLooking(text) ? undefined : clipped(text, max);
}

/** Stands in for a value not to be shown. */
const SECRET = Symbol('secret');

/** A key named like a credential: its value is never shown, whatever it is. */
function hidden(path: readonly Segment[]): boolean {
  return path.some(
    (segment) => typeof segment === 'string' && /key|secret|token|passw|credential|auth/i.test(segment),
  );
}

/**
 * A value that may be a credential: a URL carrying a user or password (`s3://id:secret@bucket`), or one word of 20 or
 * more characters that reads as random (letters and digits alternating often, or `$+=!` among them), as API keys and
 * tokens do; a path, a SKU such as `PLM-TEE-001-BLK-M` or a date does not.
 */
function secretLooking(text: string): boolean {
  // `id:secret@`: a secret may hold a '/', which would end the first form's host part before its '@'.
  if (/^[a-z][a-z0-9+.-]*:\/\/([^/?#]*@|[^/?#@:]*:[^@]*@)/i.test(text)) return true;
  if (text.length < 20 || /[\s/\\]/.test(text)) return false;
  if (/[$+=!%^*~]/.test(text)) return true;
  const switches = text.replace(/[^a-z0-9]/gi, '').match(/[a-z](?=\d)|\d(?=[a-z])/gi)?.length ?? 0;
  return switches >= 5;
}

function scalar(input: unknown): boolean {
  return input !== undefined && input !== SECRET && (input === null || typeof input !== 'object');
}

/** What was given, bounded: a scalar as JSON (a secret-looking one withheld), a list or object by its kind only. */
function given(input: unknown): string {
  if (input === SECRET) return 'a value not shown here';
  if (Array.isArray(input)) return input.length === 0 ? 'an empty list' : `a list of ${input.length}`;
  if (typeof input === 'object' && input !== null) return 'an object';
  if (typeof input === 'string') {
    if (input === '') return '"" (empty)';
    if (secretLooking(input)) return 'a value that looks like a credential (not shown)';
  }
  if (typeof input === 'bigint' || typeof input === 'symbol' || typeof input === 'function')
    return typeof input;
  return clipped(JSON.stringify(input) ?? String(input), 60);
}

function keyText(key: string): string {
  return secretLooking(key)
    ? 'a key that looks like a credential (not shown)'
    : `"${clipped(key, MAX_SEGMENT)}"`;
}

function clipped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function bounded(problem: string): string {
  return clipped(problem, MAX_PROBLEM);
}

/** zod's type names as an operator reads them. */
function typeWords(expected: string): string {
  const words: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    object: 'an object {…}',
    array: 'a list […]',
    record: 'an object {…}',
    nan: 'a number',
  };
  return words[expected] ?? expected;
}

function sizeWords(issue: Issue & { code: 'too_small' | 'too_big' }): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  const relation = small ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'less than';
  switch (issue.origin) {
    case 'string':
      if (small && bound === 1 && inclusive) return 'non-empty text';
      return `text of ${relation} ${counted(bound, 'character')}`;
    case 'array':
    case 'set':
      if (small && bound === 1 && inclusive) return 'a non-empty list';
      return `a list of ${relation} ${counted(bound, 'item')}`;
    default:
      return `${relation} ${bound}`;
  }
}

function listed(values: readonly string[], max = MAX_LISTED): string {
  const shown = values.slice(0, max).join(', ');
  const more = values.length - max;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/** ` (did you mean "x"?)` when a candidate is one or two edits (or only case) away from what was given. */
function guess(input: unknown, candidates: readonly string[]): string {
  const meant = likelyMeant(input, candidates);
  return meant === undefined ? '' : ` (did you mean "${meant}"?)`;
}

/** The candidate one or two edits (or only case, or a shortened or lengthened form) away from what was given. */
export function likelyMeant(input: unknown, candidates: readonly string[]): string | undefined {
  if (typeof input !== 'string' || input === '' || input.length > 64 || secretLooking(input))
    return undefined;
  const typed = input.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best !== undefined && best.distance <= Math.min(2, Math.floor(typed.length / 3))) return best.candidate;
  // A key given short or long ("thresholds" for "thresholdsDays").
  const extended = candidates.filter((candidate) => {
    const known = candidate.toLowerCase();
    return Math.min(known.length, typed.length) >= 4 && (known.startsWith(typed) || typed.startsWith(known));
  });
  return extended.length === 1 ? extended[0] : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let beforePrevious = previous;
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      // Two letters swapped ("fiel" for "file") is one slip, not two.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j] ?? 0, (beforePrevious[j - 2] ?? 0) + 1);
      }
    }
    beforePrevious = previous;
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

/** An object at `path` that takes no key at all (`erpPull`'s input). */
function takesNoKeys(schema: z.ZodType, path: readonly Segment[]): boolean {
  const found = schemasAt(schema, path);
  return (
    found.length > 0 &&
    found.every((one) => {
      const def = defOf(one);
      return def.type === 'object' && Object.keys(def.shape ?? {}).length === 0;
    })
  );
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
