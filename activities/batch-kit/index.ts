export { forEachBounded } from '../../connectors/staging';
export {
  failureMapper,
  guarded,
  inputLimit,
  invalidInput,
  nonRetryable,
  toActivityFailure,
  withHeartbeats,
  type FailureRule,
  type Progress,
} from './activity';
export { ApiCalls } from './api-calls';
