import { planNotApplied } from '../../../cli/run-waiter';

const timedOut = (approval: Record<string, unknown>) => ({
  approval: { decision: 'rejected', by: 'timeout', timedOut: true, ...approval },
  products: { created: 0 },
});

describe('the line --wait and watch give for a plan nobody decided on in time', () => {
  it('says how long the plan waited, from the outcome’s timeoutSeconds, in hours and minutes', () => {
    const error = planNotApplied(
      'plm-1',
      timedOut({ timeoutSeconds: 5400, reason: 'no decision within 5400s' }),
    );
    expect(error?.message).toBe(
      'Workflow plm-1 completed without writing anything: nobody approved or rejected its plan within 1h 30m, so it was rejected.',
    );
  });

  it('does not read the time out of the reason text: a result from before timeoutSeconds says "its approval timeout"', () => {
    const error = planNotApplied('plm-2', timedOut({ reason: 'no decision within 86400s' }));
    expect(error?.message).toBe(
      'Workflow plm-2 completed without writing anything: nobody approved or rejected its plan within its approval timeout, so it was rejected.',
    );
  });
});
