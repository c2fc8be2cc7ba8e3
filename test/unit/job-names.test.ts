import * as workflows from '../../workflows';
import { JOBS, jobOfWorkflowType, WORKFLOW_TYPES } from '../../worker/jobs';

describe('one name per job', () => {
  it('the worker registers every job under its workflow type and its former one, and nothing else', () => {
    const registered = Object.keys(workflows).filter(
      (name) => typeof (workflows as Record<string, unknown>)[name] === 'function',
    );
    expect(registered.sort()).toEqual([...WORKFLOW_TYPES].sort());
    for (const [name, job] of Object.entries(JOBS)) {
      expect(jobOfWorkflowType(job.workflow)).toBe(name);
      if (job.formerly) {
        const exports = workflows as Record<string, unknown>;
        expect(exports[job.formerly]).toBe(exports[job.workflow]);
      }
    }
  });
});
