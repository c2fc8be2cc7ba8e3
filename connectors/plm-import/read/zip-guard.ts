import { PlmFileError } from '../issues';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const ZIP64_MARKER = 0xffffffff;

export interface ZipEntrySummary {
  name: string;
  compressedBytes: number;
  expandedBytes: number;
}

/**
 * The entries a zip's central directory declares, read without inflating anything. Lets the reader
 * refuse a zip bomb before SheetJS expands it. Zip64 archives (entries over 4 GiB) are refused.
 */
export function zipEntries(bytes: Buffer, path: string): ZipEntrySummary[] {
  const searchFrom = Math.max(0, bytes.length - 22 - 0xffff);
  let end = -1;
  for (let at = bytes.length - 22; at >= searchFrom; at--) {
    if (bytes.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) {
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} is not a readable xlsx workbook: its zip directory is missing (truncated or damaged file).`,
    );
  }
  const count = bytes.readUInt16LE(end + 10);
  const directoryOffset = bytes.readUInt32LE(end + 16);
  if (directoryOffset === ZIP64_MARKER || count === 0xffff) {
    throw new PlmFileError(
      'expanded_too_large',
      `${path} is a zip64 archive; a product export never needs one. Re-save it from Excel.`,
    );
  }
  const entries: ZipEntrySummary[] = [];
  let at = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) {
      throw new PlmFileError(
        'not_a_spreadsheet',
        `${path} is not a readable xlsx workbook: its zip directory is damaged.`,
      );
    }
    const compressedBytes = bytes.readUInt32LE(at + 20);
    const expandedBytes = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    if (expandedBytes === ZIP64_MARKER || compressedBytes === ZIP64_MARKER) {
      throw new PlmFileError('expanded_too_large', `${path}: zip entry ${name} is over 4 GiB when expanded.`);
    }
    entries.push({ name, compressedBytes, expandedBytes });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Refuses a workbook that is not an xlsx package or would expand past `maxExpandedBytes`. */
export function checkXlsxPackage(bytes: Buffer, path: string, maxExpandedBytes: number): void {
  const entries = zipEntries(bytes, path);
  if (!entries.some((entry) => /^xl\/workbook\.(xml|bin)$/i.test(entry.name))) {
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} is a zip archive but not an Excel workbook (no xl/workbook.xml inside). Export the sheet as xlsx or csv.`,
    );
  }
  const expanded = entries.reduce((total, entry) => total + entry.expandedBytes, 0);
  if (expanded > maxExpandedBytes) {
    const biggest = [...entries].sort((a, b) => b.expandedBytes - a.expandedBytes)[0];
    throw new PlmFileError(
      'expanded_too_large',
      `${path} is ${bytes.length} bytes on disk but expands to ${expanded} bytes (largest part ${biggest?.name ?? '?'}: ` +
        `${biggest?.expandedBytes ?? 0} bytes), over the ${maxExpandedBytes}-byte limit. It may be a zip bomb; ` +
        `if it is a real export, split it or raise maxExpandedBytes.`,
    );
  }
}
