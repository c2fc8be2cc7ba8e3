/**
 * The workflow id made safe for a folder name, so continue-as-new and activity retries find the same folder. Pure
 * (workflow code checks a continuation's `resume` with it).
 */
export function runKeyOf(workflowId: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (safe || 'run').slice(0, 200);
}
