/**
 * S3's errors read by their code, not their status alone (seen against a mock S3 server): a 403
 * RequestTimeTooSkewed is the host's clock, not a refused access; a 400 RequestTimeout is a transient socket
 * timeout, not a bucket name S3 refuses, and must stay retryable.
 */
import { S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { s3InputRefusal } from '../../../connectors/storage/inputs';
import { S3Store } from '../../../connectors/storage';

/** An error as the SDK's deserializer builds it from S3's XML error body. */
function s3Error(code: string, status: number, message = 'from the server'): S3ServiceException {
  const error = new S3ServiceException({
    name: code,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
    message,
  });
  return Object.assign(error, { Code: code });
}

const ref = 's3://trace-exports/orders.csv';

describe('an s3:// input S3 answers with an error', () => {
  it('403 RequestTimeTooSkewed says the host clock is off, not "access denied"; refused (an operator fixes the clock)', () => {
    const refusal = s3InputRefusal(ref, 'trace-exports', s3Error('RequestTimeTooSkewed', 403));
    expect(refusal?.message).toMatch(/clock.*off from the S3 server's/);
    expect(refusal?.message).not.toMatch(/access denied/i);
    expect(refusal?.message).toContain(ref);
  });

  it.each([
    ['RequestTimeout', 400],
    ['SlowDown', 503],
    ['InternalError', 500],
  ])('%s (%d) stays retryable: no refusal', (code, status) => {
    expect(s3InputRefusal(ref, 'trace-exports', s3Error(code, status))).toBeUndefined();
    // Even against a bucket name the status-only heuristic would take as refused.
    expect(
      s3InputRefusal('s3://Trace_Exports/a.csv', 'Trace_Exports', s3Error(code, status)),
    ).toBeUndefined();
  });

  it('InvalidBucketName and AccessDenied are still refusals, as is a bodiless 400/403 of a HEAD', () => {
    expect(s3InputRefusal(ref, 'trace-exports', s3Error('InvalidBucketName', 400))?.message).toContain(
      'refuses the bucket name',
    );
    expect(s3InputRefusal(ref, 'trace-exports', s3Error('AccessDenied', 403))?.message).toContain(
      'access denied',
    );
    // A HEAD's answer has no body: the SDK names it by its status.
    expect(s3InputRefusal(ref, 'trace-exports', s3Error('Forbidden', 403))?.message).toContain(
      'access denied',
    );
    expect(
      s3InputRefusal('s3://Trace_Exports/a.csv', 'Trace_Exports', s3Error('BadRequest', 400))?.message,
    ).toContain('refuses the bucket name');
  });
});

describe("a worker's start check of an s3:// store", () => {
  it('403 RequestTimeTooSkewed says the clock is off, not that the credentials were refused', async () => {
    const client = {
      send: () => Promise.reject(s3Error('RequestTimeTooSkewed', 403)),
    } as unknown as S3Client;
    await expect(new S3Store(client, 'trace', 'runs').check()).rejects.toThrow(/clock/);
    await expect(new S3Store(client, 'trace', 'runs').check()).rejects.not.toThrow(
      /credentials were refused/,
    );
  });
});
