export { forEachBounded } from '../../connectors/staging';
export { ApiCalls } from './api-calls';
export { failureMapper, inputLimit, invalidInput, nonRetryable, toActivityFailure, type FailureRule } from './failures';
export { withHeartbeats, type Progress } from './heartbeats';
