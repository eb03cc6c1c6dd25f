/**
 * @umbel/workflow — `umbel run workflow.yaml`: parse and validate a workflow with the core
 * schemas, and run its steps over an engine passed in by value. No tmux, no provider imports.
 */
export {
  MAX_WORKER_KEY_LENGTH,
  OutputKeySchema,
  OutputSourceSchema,
  RunIdSchema,
  StepIdSchema,
  WorkerKeySchema,
  WorkflowSchema,
  WorkflowStepSchema,
  WorkflowWorkerSchema,
  type WorkflowInput,
  type WorkflowSpec,
  type WorkflowStep,
  type WorkflowWorker,
} from './schema.js';
export { checkBindings, parseWorkflow, type ParseWorkflowOptions, type SpecPath, type Workflow, type WorkflowIssue } from './parse.js';
export { renderTemplate, scanTemplates, TEMPLATE_FORMS, type TemplateContext, type TemplateRef, type TemplateSyntaxProblem } from './template.js';
export { ancestors, dependencies, findCycle, type StepDependency } from './graph.js';
export { newRunId, resumeWorkflow, runDirOf, runWorkflow, type RunStatus, type RunWorkflowOptions, type StepRecord, type WorkflowSummary } from './run.js';
export { renderProgressLine, StepState, type RunEvent, type StepEvent, type WorkflowEvent } from './progress.js';
export { parseVarArgs, runWorkflowCommand, type RunWorkflowCommandOptions, type TextSink } from './command.js';
export { exitCodeOfError } from './exit-code.js';
