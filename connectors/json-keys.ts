import { quoteInput } from './input-limits';

/** A mapping file needs a handful of levels; past this the file is not one. */
export const MAX_MAPPING_DEPTH = 64;

interface Frame {
  kind: 'object' | 'array';
  /** Where this object or array is, as `columns` or `listSeparators[2]`; '' for the top level. */
  path: string;
  /** Objects: each key seen so far and its line. */
  keys?: Map<string, number>;
  /** Objects: the next string is a key. */
  expectKey: boolean;
  /** The key (object) or index (array) of the value being read. */
  at: string;
  index: number;
}

function where(path: string): string {
  return path === '' ? 'the top level' : quoteInput(path, 120);
}

function child(frame: Frame): string {
  if (frame.kind === 'array') return `${frame.path}[${frame.index}]`;
  return frame.path === '' ? frame.at : `${frame.path}.${frame.at}`;
}

/**
 * What JSON.parse would hide in a mapping file's text: a key given twice in one object (JSON.parse keeps the last
 * without a word, so the setting the operator reads first is not the one used), a `__proto__` key (names an object's
 * prototype, never a setting) and nesting past `MAX_MAPPING_DEPTH`. One linear pass, no recursion; undefined when
 * none is found. Text that is not JSON is left for JSON.parse to report.
 */
export function mappingJsonProblem(text: string): string | undefined {
  const stack: Frame[] = [];
  let line = 1;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    const top = stack[stack.length - 1];
    // (A line ends at LF, CRLF or a lone CR, as an old Mac editor writes: JSON reads all three as whitespace.)
    if (char === '\n' || (char === '\r' && text[at + 1] !== '\n')) line++;
    else if (char === '"') {
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return undefined;
      if (top?.kind === 'object' && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(at, end + 1)) as string;
        } catch {
          return undefined;
        }
        const shown = quoteInput(key, 60);
        if (key === '__proto__')
          return `the key "__proto__" (in ${where(top.path)}, line ${line}) names JavaScript's object prototype, not a setting; remove it`;
        const keys = (top.keys ??= new Map());
        const first = keys.get(key);
        if (first !== undefined)
          return (
            `the key "${shown}" appears twice in ${where(top.path)} (lines ${first} and ${line}); JSON keeps only ` +
            'the last, so the first would be ignored without a word: remove one'
          );
        keys.set(key, line);
        top.at = key;
        top.expectKey = false;
      }
      at = end;
    } else if (char === '{' || char === '[') {
      const path = top === undefined ? '' : child(top);
      if (stack.length >= MAX_MAPPING_DEPTH)
        return `it is nested more than ${MAX_MAPPING_DEPTH} levels deep (line ${line}, in ${where(path)}); a mapping file needs a few: check that it is the mapping file`;
      stack.push({
        kind: char === '{' ? 'object' : 'array',
        path,
        expectKey: char === '{',
        at: '',
        index: 0,
      });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',' && top !== undefined) {
      if (top.kind === 'object') top.expectKey = true;
      else top.index++;
    }
  }
  return undefined;
}
