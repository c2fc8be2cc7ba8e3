export { failureMapper, inputLimit, invalidInput, nonRetryable, toActivityFailure, type FailureRule } from './failures';
