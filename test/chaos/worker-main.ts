import { runAction } from '../../cli/run-action';
import { main } from '../../worker/main';

/**
 * The chaos runs' worker process: `trace-sync worker`'s own main, given the workflow bundle the test harness made
 * once (TRACE_CHAOS_WORKFLOW_BUNDLE). A worker bundles the workflows as it starts, which took 20-40 s of each
 * restart on a loaded machine: the bulk of what a kill cost the short run, and of its sensitivity to load.
 */
void runAction(() => main({ workflowBundlePath: process.env.TRACE_CHAOS_WORKFLOW_BUNDLE }));
