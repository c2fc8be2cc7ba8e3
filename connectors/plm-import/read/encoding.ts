import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';

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

/** Where a file stops being UTF-8: null when all of it is valid, else the byte offset and 1-based line. */
export async function findNonUtf8(path: string): Promise<{ offset: number; line: number } | null> {
  let carry: Buffer = Buffer.alloc(0);
  let consumed = 0;
  let lines = 1;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let checkedUpTo = bytes.length;
    if (!isUtf8(bytes)) {
      const { invalidAt, incompleteFrom } = firstInvalidUtf8(bytes);
      if (invalidAt >= 0) {
        return { offset: consumed + invalidAt, line: lines + countNewlines(bytes, invalidAt) };
      }
      checkedUpTo = incompleteFrom >= 0 ? incompleteFrom : bytes.length;
    }
    lines += countNewlines(bytes, checkedUpTo);
    consumed += checkedUpTo;
    carry = bytes.subarray(checkedUpTo);
  }
  return carry.length > 0 ? { offset: consumed, line: lines } : null;
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  let at = bytes.indexOf(10);
  while (at >= 0 && at < end) {
    count++;
    at = bytes.indexOf(10, at + 1);
  }
  return count;
}

/** Decodes a byte stream to text chunks (a UTF-8 byte-order mark is dropped by TextDecoder). */
export async function* decodeStream(
  path: string,
  encoding: 'utf-8' | 'utf-16le' | 'windows-1252',
): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) yield text;
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}
