/** Allowed extension and MIME pairs of document 3 (Files). */
export const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  bmp: 'image/bmp',
  png: 'image/png',
  heic: 'image/heic',
  gif: 'image/gif',
  webp: 'image/webp',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  webm: 'video/webm',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pdf: 'application/pdf',
  xls: 'application/vnd.ms-excel',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  rtf: 'text/rtf',
};

const SUPPORTED_MIME = new Set(Object.values(MIME_BY_EXTENSION));

export const MAX_FILE_SIZE = 1_073_741_824;

/** Lower-cased extension after the last dot, or undefined when the name has none. */
export function extensionOf(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot <= 0 || dot === filename.length - 1) return undefined;
  return filename.slice(dot + 1).toLowerCase();
}

export const isSupportedMime = (mime: string): boolean => SUPPORTED_MIME.has(mime);
