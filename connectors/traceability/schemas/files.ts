import { z } from 'zod';
import { nullishNumber, nullishString } from './common';

/** Extension to MIME pairs the API accepts (spec document 3). */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.bmp': 'image/bmp',
  '.png': 'image/png',
  '.heic': 'image/heic',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.tiff': 'image/tiff',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.pdf': 'application/pdf',
  '.xls': 'application/vnd.ms-excel',
  '.csv': 'text/csv',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.rtf': 'text/rtf',
};

export function fileTypeFor(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? undefined : FILE_TYPES[filename.slice(dot).toLowerCase()];
}

export const fileCreateSchema = z
  .strictObject({
    filename: z.string().min(1),
    fileSize: z.number().int().min(1).max(1_073_741_824),
    fileType: z.string().min(1),
  })
  .superRefine((value, ctx) => {
    const expected = fileTypeFor(value.filename);
    if (!expected)
      ctx.addIssue({ code: 'custom', path: ['filename'], message: 'unsupported file extension' });
    else if (expected !== value.fileType) {
      ctx.addIssue({
        code: 'custom',
        path: ['fileType'],
        message: `expected ${expected} for this extension`,
      });
    }
  });
export type FileCreate = z.input<typeof fileCreateSchema>;

export const fileRecordSchema = z.looseObject({
  id: z.string().min(1),
  url: z.string().url(),
  name: nullishString,
  bucketName: nullishString,
  originalUrl: nullishString,
  fileType: nullishString,
  contentType: nullishString,
  fileSize: nullishNumber,
  fileHash: nullishString,
  createdAt: nullishString,
});
export type FileRecord = z.infer<typeof fileRecordSchema>;
