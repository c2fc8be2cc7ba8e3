import {
  fileCreateSchema,
  fileRecordSchema,
  fileTypeFor,
  type FileCreate,
  type FileRecord,
} from '../schemas/files';
import { ClientErrorCode, TraceabilityApiError } from '../errors';
import { Resource, type CallOptions } from './base';

export interface UploadInput {
  filename: string;
  bytes: Uint8Array;
  /** MIME type; derived from the extension when omitted. */
  fileType?: string;
}

/** Two-step upload: POST /files registers the file, then the bytes go to the signed URL. */
export class FilesResource extends Resource {
  /**
   * POST /files. Not retried once it may have reached the server; an orphan record is harmless
   * (unreferenced files are cleaned up), so a caller may simply run `upload` again.
   */
  async register(input: FileCreate, options?: CallOptions): Promise<FileRecord> {
    return this.write(
      {
        method: 'POST',
        endpoint: '/files',
        bodySchema: fileCreateSchema,
        input,
        dataSchema: fileRecordSchema,
        safety: 'unsafe',
      },
      options,
    );
  }

  /** PUT to the pre-signed URL (outside the base URL, without the API key). */
  async putBytes(
    record: FileRecord,
    bytes: Uint8Array,
    fileType: string,
    options: CallOptions = {},
  ): Promise<void> {
    await this.transport.putSigned(record.url, bytes, fileType, options.signal);
  }

  /** Both steps; returns the file record whose `id` goes into `imagesFileIds` and the like. */
  async upload(input: UploadInput, options?: CallOptions): Promise<FileRecord> {
    const fileType = input.fileType ?? fileTypeFor(input.filename);
    if (!fileType) {
      throw new TraceabilityApiError({
        statusCode: 0,
        code: ClientErrorCode.invalidRequest,
        message: `POST /files: unsupported file extension in "${input.filename}"`,
        method: 'POST',
        path: '/files',
        retryable: false,
      });
    }
    const record = await this.register(
      { filename: input.filename, fileSize: input.bytes.byteLength, fileType },
      options,
    );
    await this.putBytes(record, input.bytes, fileType, options);
    return record;
  }
}
