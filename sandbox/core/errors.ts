/** An API error answered with the spec's error envelope: `statusCode`, stable `code`, readable `message`. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The spec names no code for generic validation failures; the sandbox uses this one (see sandbox/README.md). */
export const VALIDATION_ERROR = 'validation_error';

export const badRequest = (message: string, code = VALIDATION_ERROR): ApiError =>
  new ApiError(400, code, message);
export const notFound = (message: string, code = 'not_found'): ApiError => new ApiError(404, code, message);
export const conflict = (code: string, message: string): ApiError => new ApiError(409, code, message);
export const forbidden = (message: string, code = 'forbidden'): ApiError => new ApiError(403, code, message);
