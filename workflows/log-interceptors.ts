/**
 * Workflow interceptors for the worker's log (bundled with the workflows, see workflowInterceptorModules).
 * The SDK's "Workflow failed" line carries the failure through the workflow sandbox's log sink, a structured clone
 * that keeps an Error's message, stack and cause but drops its own fields: the failure's `type`
 * ("TraceabilityApiError:…", "InvalidInput"…), the part that says which of the job's failures it is. Its type is
 * kept here as it leaves the workflow and added to the lines logged after (`failureType`), which the worker's
 * logger folds back into the error's type. No command changes: nothing to patch, histories replay as they are.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const FAILURE_TYPE_ATTRIBUTE = 'failureType';

function typeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' && type !== '' ? type : undefined;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let failureType: string | undefined;
  return {
    inbound: [
      {
        async execute(input, next) {
          try {
            return await next(input);
          } catch (error) {
            failureType = typeOf(error);
            throw error;
          }
        },
      },
    ],
    outbound: [
      {
        getLogAttributes(input, next) {
          return next(
            failureType === undefined ? input : { ...input, [FAILURE_TYPE_ATTRIBUTE]: failureType },
          );
        },
      },
    ],
  };
};
