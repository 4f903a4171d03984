import { ApplicationFailure, Context } from '@temporalio/activity';

/** The workflow execution running the current activity (our activities always run inside one). */
export function currentWorkflow(): { workflowId: string; runId: string; attempt: number } {
  const info = Context.current().info;
  const execution = info.workflowExecution;
  if (!execution) throw ApplicationFailure.nonRetryable('activity must run inside a workflow', 'NoWorkflowContext');
  return { workflowId: execution.workflowId, runId: execution.runId, attempt: info.attempt };
}
