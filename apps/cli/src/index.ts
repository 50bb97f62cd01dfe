export { runCli, HELP } from './cli';
export type { CliIo } from './cli.context';
export { ExitCode, type ExitCodeValue } from './util/exit-codes';
export { validateWorkflowText, type WorkflowValidation } from './workflow/workflow-file.validator';
export { formatDiagnostic, type Diagnostic } from './workflow/diagnostic';
export { LEGACY_CONVERSATION_FIELDS, CONVERSATION_FIELDS, CONVERSATION_TYPE_ID } from '@openwop/contracts';
