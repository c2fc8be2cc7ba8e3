import { quoteInput } from '../../input-limits';
import { serialIn1900System } from '../../workbook-cells';
import type { CellValue } from '../read/sheet';

/** A cell as trimmed text (numbers as written by JavaScript, e.g. 4006381333931), or null when blank. */
export function cellText(value: CellValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}

export { readLocaleNumber, type DecimalMark, type NumberRead } from '../../number-text';

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'x', 'ja', 'oui']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'nein', 'non']);

export function parseBoolean(value: CellValue): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : null;
  const text = (value ?? '').trim().toLowerCase();
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  return null;
}

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

function isoFromParts(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return null;
  return date.toISOString().slice(0, 10);
}

/**
 * A calendar date as YYYY-MM-DD from an Excel serial number (of the workbook's date system: `date1904` for a workbook
 * counting from 1904-01-01), ISO text, or D/M/Y text in the profile's order.
 */
export function parseDate(value: CellValue, order: 'DMY' | 'MDY', date1904 = false): string | null {
  if (typeof value === 'number') {
    const serial = serialIn1900System(value, date1904);
    if (serial < 1 || serial > 2958465) return null;
    return new Date(EXCEL_EPOCH_MS + Math.floor(serial) * 86_400_000).toISOString().slice(0, 10);
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+Z?)?$/.exec(text);
  if (iso) return isoFromParts(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const parts = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/.exec(text);
  if (!parts) return null;
  const [first, second, year] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  return order === 'DMY' ? isoFromParts(year, second, first) : isoFromParts(year, first, second);
}

/** Items of a list cell: split on any of `separators`, trimmed, blanks and repeats dropped. */
const splitPatterns = new Map<string, RegExp>();

export function splitList(text: string, separators = ';'): string[] {
  let pattern = splitPatterns.get(separators);
  if (!pattern) {
    pattern = new RegExp(`[${separators.replace(/[\]\\^-]/g, '\\$&')}]`);
    splitPatterns.set(separators, pattern);
  }
  return [
    ...new Set(
      text
        .split(pattern)
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ),
  ];
}

export interface MaterialShare {
  material: string;
  percentage: number;
}

/** One composition of a product (spec 02: a material header), e.g. "Shell" or "Lining"; `name` null when unlabelled. */
export interface CompositionSection {
  name: string | null;
  shares: MaterialShare[];
}

/** A part's materials when it writes no separator between them: "95% Cotton 5% Elastane", "Cotton 95% Elastane 5%". */
function splitAtPercentages(part: string): string[] {
  const pieces = /^\d+(?:[.,]\d+)?\s*%/.test(part)
    ? // before each "<n>%" that is not the end of another number (the "6" of "Polyamide 6.6")
      part.split(/(?<![\d.,])(?=\d+(?:[.,]\d+)?\s*%)/)
    : part.endsWith('%')
      ? part.split(/(?<=%)\s*(?=\S)/)
      : [part];
  return pieces.map((piece) => piece.trim()).filter((piece) => piece !== '');
}

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';

/**
 * "Elastane 5%" read from its end: the percentage as written and the material before it, or undefined. A backward
 * scan, not a regex search, which would be quadratic on a cell of digits ("Cotton 5555...5 %x").
 */
function trailingShare(part: string): [string, string] | undefined {
  if (!part.endsWith('%')) return undefined;
  let end = part.length - 1;
  while (end > 0 && /\s/.test(part.charAt(end - 1))) end--;
  let start = end;
  while (isDigit(part[start - 1])) start--;
  if (start === end) return undefined;
  const mark = part[start - 1];
  if ((mark === '.' || mark === ',') && isDigit(part[start - 2])) {
    start--;
    while (isDigit(part[start - 1])) start--;
  }
  const material = part.slice(0, start);
  return material.trim() === '' ? undefined : [part.slice(start, end), material];
}

function parseShares(sectionParts: readonly string[], label: string): MaterialShare[] | string {
  const parts = sectionParts
    .flatMap((text) => text.split(/\/|\+|(?<!\d),|,(?!\d)/))
    .flatMap((part) => splitAtPercentages(part.trim()));
  const shares: MaterialShare[] = [];
  const listed = new Set<string>();
  for (const part of parts) {
    const leading = /^(\d+(?:[.,]\d+)?)\s*%\s*(.+)$/.exec(part);
    const [percentText, material] = leading ? [leading[1], leading[2]] : (trailingShare(part) ?? []);
    if (percentText === undefined || material === undefined)
      return `'${quoteInput(part)}' is not "<percent>% <material>"`;
    const percentage = Number(percentText.replace(',', '.'));
    // spec 02, material line: "percentage | number | 0-100, share among siblings": 0 (a trace amount) included
    if (!(percentage >= 0 && percentage <= 100))
      return `'${quoteInput(part)}' has a percentage outside 0-100`;
    const name = material.trim();
    if (name.includes(':'))
      return `'${quoteInput(name)}' is not a material: a label ends with ':' and starts a part, after ';' or ',' ("Shell: 100% Polyester; Lining: 100% Cotton")`;
    if (listed.has(name.toLowerCase())) return `'${quoteInput(name)}' is listed twice${label}`;
    listed.add(name.toLowerCase());
    shares.push({ material: name, percentage });
  }
  if (shares.length === 0) return `no material found${label}`;
  // spec 02, tree rule 1: "Sibling percentages at one tree level must sum to at most 100", with no rounding stated;
  // only binary floating-point error (33.33 + 33.33 + 33.34) passes above 100
  const sum = shares.reduce((total, share) => total + share.percentage, 0);
  const total = Math.round(sum * 1e6) / 1e6;
  if (sum > 100 + 1e-9) return `the percentages${label} add up to ${total}%, more than 100%`;
  return shares;
}

/** A label written after a percentage and then ",", "/" or "+" ("Lining:"), up to its colon. */
const LABEL_AHEAD = /\s*[^\s\d%:,/+][^%:,/+;]*:/y;

/**
 * A label ("Lining:") after ",", "/" or "+" that follows a percentage starts a section as after ";". A label cannot
 * start with a digit (the comma of "29,5%" never splits), and one holding a separator ("Body/Sleeves:") is kept whole.
 * One pass, each look ahead ending at the next separator: a cell of Excel's 32,767 characters reads in linear time.
 */
function splitBeforeLabels(chunk: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let percentSinceLabel = false;
  for (let at = 0; at < chunk.length; at++) {
    const char = chunk[at];
    if (char === '%') percentSinceLabel = true;
    else if (char === ':') percentSinceLabel = false;
    else if (percentSinceLabel && (char === ',' || char === '/' || char === '+')) {
      LABEL_AHEAD.lastIndex = at + 1;
      if (!LABEL_AHEAD.test(chunk)) continue;
      pieces.push(chunk.slice(start, at));
      start = at + 1;
    }
  }
  pieces.push(chunk.slice(start));
  return pieces;
}

/**
 * "Shell : 100% Polyamide" as its label and the text after the colon; null when the text before the first ':' is no
 * label (empty, starting with a digit, or holding a '%'). Found with indexOf: a lazy label regex followed by \s* is
 * quadratic on a run of spaces.
 */
function splitLabel(chunk: string): { name: string; rest: string } | null {
  const colon = chunk.indexOf(':');
  if (colon <= 0) return null;
  const label = chunk.slice(0, colon);
  if (/^\d/.test(label) || label.includes('%')) return null;
  const rest = chunk.slice(colon + 1).trimStart();
  // As the former regex's (.*)$: a line or paragraph separator after the colon leaves the text unlabelled.
  if (/[\n\r\u2028\u2029]/.test(rest)) return null;
  return { name: label.trim(), rest };
}

/**
 * "95% Cotton, 5% Elastane" (also "95% Cotton 5% Elastane", "Cotton 95% / Elastane 5%", ";" or "+" or new lines
 * between parts) as one unlabelled section; "Shell: 100% Polyamide; Lining: 100% Polyester" (or "," "/" "+" before a
 * label) as labelled sections (one material header each). Returns the reason as text when the composition cannot be
 * read or a section adds up past 100.
 */
export function parseComposition(text: string): CompositionSection[] | string {
  const sections: Array<{ name: string | null; parts: string[] }> = [];
  const pieces = text.split(/[;\n\r]+/).flatMap(splitBeforeLabels);
  for (const chunk of pieces) {
    const trimmed = chunk.trim();
    if (trimmed === '') continue;
    const labelled = splitLabel(trimmed);
    if (labelled) sections.push({ name: labelled.name, parts: [labelled.rest] });
    else if (sections.length === 0) sections.push({ name: null, parts: [trimmed] });
    else sections[sections.length - 1]?.parts.push(trimmed);
  }
  if (sections.length === 0) return 'no material found';
  const out: CompositionSection[] = [];
  for (const section of sections) {
    if (
      section.name !== null &&
      out.some((other) => other.name?.toLowerCase() === section.name?.toLowerCase())
    )
      return `section '${quoteInput(section.name)}' is listed twice`;
    if (section.name !== null && section.name.length > 255)
      return `section name '${section.name.slice(0, 40)}...' is over 255 characters`;
    const shares = parseShares(
      section.parts,
      section.name === null ? '' : ` in '${quoteInput(section.name)}'`,
    );
    if (typeof shares === 'string') return shares;
    out.push({ name: section.name, shares });
  }
  if (out.length > 1 && out.some((section) => section.name === null))
    return 'label every part ("Shell: ...; Lining: ...") or none';
  return out;
}
