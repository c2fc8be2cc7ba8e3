import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { boundMessage, InputLimitError } from '../../connectors/input-limits';
import { PlmFileError } from '../../connectors/plm';
import { StagingIntegrityError } from '../../connectors/staging';
import { toActivityFailure } from '../../connectors/traceability';

/** A problem with the run's input that no retry can fix (a bad mapping file, both profile and mappingFile...). */
export class PlmInputError extends Error {
  override readonly name = 'PlmInputError';
}

/** Errors no retry can fix stop the run with their own message; API errors follow the client's retry rules. */
export function asActivityFailure(error: unknown): unknown {
  if (error instanceof PlmFileError)
    return ApplicationFailure.nonRetryable(boundMessage(error.message), `PlmFileError:${error.code}`);
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return ApplicationFailure.nonRetryable(`invalid activity input: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(), 'InvalidInput');
  }
  if (error instanceof InputLimitError) {
    return ApplicationFailure.nonRetryable(boundMessage(error.message), `PlmFileError:${error.code}`);
  }
  if (error instanceof PlmInputError || error instanceof StagingIntegrityError) {
    return ApplicationFailure.nonRetryable(boundMessage(error.message), error.name);
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
    return ApplicationFailure.nonRetryable((error as Error).message, `FileError:${code}`);
  }
  return toActivityFailure(error);
}
