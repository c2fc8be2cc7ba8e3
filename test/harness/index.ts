export { startTestStack, type TestStack, type TestStackOptions } from './stack';
export { readHarnessInfo, type HarnessInfo } from './harness-info';
export { testLogRoot } from './logs';
export { cliEnv, cliProblems, traceSync, waitResult, type CliRun } from './cli';
export { sandboxApi } from './sandbox-api';
