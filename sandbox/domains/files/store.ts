/** A file registered by POST /files; `uploadedAt` is set by the PUT to its signed address. */
export interface FileRecord {
  id: string;
  forCompanyId: string;
  name: string;
  fileType: string;
  fileSize: number;
  bucketName: string;
  /** When the current signed upload address stops working (Unix ms). */
  uploadUrlExpiresMs: number;
  uploadedAt: string | null;
  uploadedSize: number | null;
  fileHash: string | null;
  createdAt: string;
  updatedAt: string;
  createdByCompanyId: string | null;
  createdByUserId: string | null;
  createdByApiKeyId: string | null;
  createdByApiKeyLabel: string | null;
}

/** Uploaded bytes are kept for small files only (so image urls can be fetched), never for large ones. */
export const KEEP_BYTES_UP_TO = 8 * 1024 * 1024;

export class FilesStore {
  readonly files = new Map<string, FileRecord>();
  readonly bytes = new Map<string, Buffer>();

  constructor(records: FileRecord[] = []) {
    for (const record of records) this.files.set(record.id, record);
  }

  get(id: string): FileRecord | undefined {
    return this.files.get(id);
  }

  /** A file the company registered and whose bytes arrived: what `imagesFileIds` may reference. */
  uploadedFor(companyId: string, id: string): FileRecord | undefined {
    const file = this.files.get(id);
    return file && file.forCompanyId === companyId && file.uploadedAt !== null ? file : undefined;
  }

  add(record: FileRecord): void {
    this.files.set(record.id, record);
  }
}
