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
  staysInside,
  type WorkflowInput,
  type WorkflowSpec,
  type WorkflowStep,
  type WorkflowWorker,
} from './schema.js';
export {
  analyzeWorkflow,
  checkBindings,
  parseWorkflow,
  type ParseWorkflowOptions,
  type SpecPath,
  type Workflow,
  type WorkflowAnalysis,
  type WorkflowIssue,
} from './parse.js';
export { IssueList, MAX_LISTED_ISSUES, type Locate, type LocateOptions } from './issues.js';
export { MAX_ALIAS_EXPANSIONS, MAX_WORKFLOW_BYTES, MAX_YAML_DEPTH, readWorkflowFile } from './source.js';
export { loadWorkflow } from './preflight.js';
export { renderTemplate, scanTemplates, TEMPLATE_FORMS, type TemplateContext, type TemplateRef, type TemplateSyntaxProblem } from './template.js';
export {
  ancestors,
  dependencies,
  findCycle,
  findCycles,
  type GraphStep,
  type StepCycle,
  type StepDependency,
  topologicalOrder,
  upstreamOf,
} from './graph.js';
export { newRunId, resumeWorkflow, runDirOf, runWorkflow, type RunStatus, type RunWorkflowOptions, type StepRecord, type WorkflowSummary } from './run.js';
export { renderProgressLine, StepState, type RunEvent, type StepEvent, type WorkflowEvent } from './progress.js';
export { parseVarArgs, type RunWorkflowFileOptions, runWorkflowFile } from './run-file.js';
