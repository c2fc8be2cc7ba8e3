import { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure } from '../../../activities/batch-kit';
import { TraceabilityApiError } from '../../../connectors/traceability';

const error = (
  statusCode: number,
  code: string,
  retryable: boolean,
  retryAfterMs?: number,
): TraceabilityApiError =>
  new TraceabilityApiError({
    statusCode,
    code,
    message: `${code} happened`,
    method: 'GET',
    path: '/styles',
    retryable,
    ...(retryAfterMs ? { retryAfterMs } : {}),
  });

describe('toActivityFailure', () => {
  it('makes 4xx API errors non-retryable with a typed failure', () => {
    const failure = toActivityFailure(error(400, 'codes_not_unique', false));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'TraceabilityApiError:codes_not_unique',
      nonRetryable: true,
      message: 'codes_not_unique happened',
    });
  });

  it('passes a long Retry-After to Temporal as nextRetryDelay', () => {
    expect(toActivityFailure(error(429, 'too_many_requests', true, 45_000))).toMatchObject({
      nonRetryable: false,
      nextRetryDelay: 45_000,
    });
  });

  it('leaves plain retryable errors to the retry policy and other errors untouched', () => {
    const failure = toActivityFailure(error(503, 'unavailable', true)) as ApplicationFailure;
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
    const plain = new Error('boom');
    expect(toActivityFailure(plain)).toBe(plain);
  });
});
