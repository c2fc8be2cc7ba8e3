import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

/**
 * How csv text is stored and decoded, for both csv readers (the PLM import and the ERP order push): one decision
 * over the whole file, so a Windows-1252 file whose first megabytes are plain ASCII still reads its accents; UTF-16
 * when a byte-order mark says so; Excel's `sep=;` first line.
 */
export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** A file (read from its start as often as needed, in chunks) or bytes in memory. */
export type ByteSource = { path: string } | Buffer;

export interface EncodingDecision {
  encoding: CsvEncoding;
  /** The bytes start with a byte-order mark (the decoded text does not). */
  bom: boolean;
  /** Windows-1252 was chosen: where the bytes stop being UTF-8 (byte offset and 1-based line). */
  firstNonUtf8: { offset: number; line: number } | null;
}

const CHUNK_BYTES = 1024 * 1024;

function chunksOf(source: ByteSource): AsyncIterable<Buffer> {
  if (Buffer.isBuffer(source)) return Readable.from([source]);
  return createReadStream(source.path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>;
}

/**
 * Index of the first byte that cannot start or continue a valid UTF-8 sequence, or -1.
 * A sequence cut off by the end of `bytes` is reported through `incompleteFrom` instead.
 */
export function firstInvalidUtf8(bytes: Uint8Array): { invalidAt: number; incompleteFrom: number } {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    let length: number;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) length = 3;
    else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
    else return { invalidAt: index, incompleteFrom: -1 };
    if (index + length > bytes.length) {
      for (let k = index + 1; k < bytes.length; k++) {
        if (((bytes[k] ?? 0) & 0xc0) !== 0x80) return { invalidAt: index, incompleteFrom: -1 };
      }
      return { invalidAt: -1, incompleteFrom: index };
    }
    for (let k = 1; k < length; k++) {
      if (((bytes[index + k] ?? 0) & 0xc0) !== 0x80) return { invalidAt: index, incompleteFrom: -1 };
    }
    index += length;
  }
  return { invalidAt: -1, incompleteFrom: -1 };
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  for (let at = bytes.indexOf(10); at >= 0 && at < end; at = bytes.indexOf(10, at + 1)) count++;
  return count;
}

/** Where the bytes stop being UTF-8: null when all of them are valid, else the byte offset and 1-based line. */
export async function findNonUtf8(source: ByteSource): Promise<{ offset: number; line: number } | null> {
  let carry: Buffer = Buffer.alloc(0);
  let consumed = 0;
  let lines = 1;
  for await (const chunk of chunksOf(source)) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let checkedUpTo = bytes.length;
    if (!isUtf8(bytes)) {
      const { invalidAt, incompleteFrom } = firstInvalidUtf8(bytes);
      if (invalidAt >= 0)
        return { offset: consumed + invalidAt, line: lines + countNewlines(bytes, invalidAt) };
      checkedUpTo = incompleteFrom >= 0 ? incompleteFrom : bytes.length;
    }
    lines += countNewlines(bytes, checkedUpTo);
    consumed += checkedUpTo;
    carry = bytes.subarray(checkedUpTo);
  }
  return carry.length > 0 ? { offset: consumed, line: lines } : null;
}

async function firstBytes(source: ByteSource, count: number): Promise<Buffer> {
  if (Buffer.isBuffer(source)) return source.subarray(0, count);
  const stream = createReadStream(source.path, { start: 0, end: count - 1 });
  const parts: Buffer[] = [];
  for await (const part of stream as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * The encoding of csv bytes, decided over all of them in one streamed pass: a UTF-16 byte-order mark gives UTF-16;
 * otherwise UTF-8 when every byte is valid UTF-8 (a UTF-8 BOM allowed), else Windows-1252, the usual encoding of
 * older exports.
 */
export async function decideEncoding(source: ByteSource): Promise<EncodingDecision> {
  const head = await firstBytes(source, 3);
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true, firstNonUtf8: null };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true, firstNonUtf8: null };
  const invalid = await findNonUtf8(source);
  if (invalid !== null) return { encoding: 'windows-1252', bom: false, firstNonUtf8: invalid };
  return {
    encoding: 'utf-8',
    bom: head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf,
    firstNonUtf8: null,
  };
}

/** Text of the bytes in the encoding decided, in chunks (a byte-order mark dropped). */
export async function* decodeBytes(source: ByteSource, encoding: CsvEncoding): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of chunksOf(source)) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** Text as bytes in the encoding a csv came in (a character Windows-1252 cannot hold becomes '?'). */
export function encodeText(text: string, encoding: CsvEncoding, bom: boolean): Buffer {
  switch (encoding) {
    case 'windows-1252':
      return encodeWindows1252(text);
    case 'utf-16le':
      return Buffer.from((bom ? '\uFEFF' : '') + text, 'utf16le');
    case 'utf-16be':
      return Buffer.from((bom ? '\uFEFF' : '') + text, 'utf16le').swap16();
    case 'utf-8':
      return Buffer.from((bom ? '\uFEFF' : '') + text, 'utf8');
  }
}

/** The characters Windows-1252 places in 0x80-0x9F (elsewhere it is Latin-1). */
const WINDOWS_1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function encodeWindows1252(text: string): Buffer {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 63;
    const high = WINDOWS_1252_HIGH.indexOf(char);
    if (high >= 0) bytes.push(0x80 + high);
    else bytes.push(code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : 63);
  }
  return Buffer.from(bytes);
}

/** Excel's first line `sep=;` (also quoted, `"sep=;"`): the delimiter it names and how many characters it takes. */
export function excelSepLine(text: string): { delimiter: string; length: number } | null {
  const match = /^(?:sep=(.)|"sep=(.)")[^\S\r\n]*(?:\r\n|\n|\r|$)/i.exec(text);
  const delimiter = match?.[1] ?? match?.[2];
  return match && delimiter !== undefined ? { delimiter, length: match[0].length } : null;
}

/** Csv text ready to split into records: its encoding, Excel's `sep=` delimiter and the text after that line. */
export interface CsvText {
  decision: EncodingDecision;
  /** The delimiter Excel's `sep=` first line names; the line itself is not in `text` (Excel does not show it). */
  sepDelimiter: string | undefined;
  /** At least the first `headChars` characters of `text` (all of it when shorter), to look at before parsing. */
  head: string;
  /** The whole text, `head` included. */
  text: AsyncGenerator<string>;
}

/**
 * Decides the encoding over the whole source (one streamed pass, memory bounded by a chunk), then decodes it in a
 * second pass. The first `headChars` characters are read ahead so a reader can guess the delimiter and line ends.
 */
export async function openCsvText(source: ByteSource, headChars = 64 * 1024): Promise<CsvText> {
  const decision = await decideEncoding(source);
  const chunks = decodeBytes(source, decision.encoding);
  let head = '';
  let sepDelimiter: string | undefined;
  let sepChecked = false;
  while (head.length < headChars + 64) {
    const next = await chunks.next();
    if (next.done) break;
    head += next.value;
    if (!sepChecked && (head.length >= 16 || /[\r\n]/.test(head))) {
      sepChecked = true;
      const sep = excelSepLine(head);
      if (sep !== null) {
        sepDelimiter = sep.delimiter;
        head = head.slice(sep.length);
      }
    }
  }
  if (!sepChecked) {
    const sep = excelSepLine(head);
    if (sep !== null) {
      sepDelimiter = sep.delimiter;
      head = head.slice(sep.length);
    }
  }
  async function* text(): AsyncGenerator<string> {
    if (head !== '') yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  return { decision, sepDelimiter, head, text: text() };
}
