/** What Codex's tool calls do (`doClassifyTool`, `doReadToolError`; codex-FACTS.md: "Tools"). Pure. */
import { isAbsolute, resolve } from 'node:path';
import type { ProviderV1ToolCall, ProviderV1ToolResult, ProviderV1ToolUse, ToolFacts } from '@umbel/provider';
import { argvCommandLine, asRecord, parseJson, stringField } from '@umbel/provider';

/** What each patch marker (`*** Add File: <path>`) does to its file. */
const PATCH_MARKS = { 'Add File': 'written', 'Move to': 'written', 'Update File': 'edited', 'Delete File': 'edited' } as const;

/** The files a Codex patch writes and edits, by its markers. */
export function patchPaths(patch: string, workdir?: string): Required<Pick<ProviderV1ToolUse, 'edited' | 'written'>> {
  const paths = { edited: [] as string[], written: [] as string[] };
  for (const line of patch.split('\n')) {
    const [, mark, path] = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line) ?? [];
    if (mark && path) paths[PATCH_MARKS[mark as keyof typeof PATCH_MARKS]].push(workdir && !isAbsolute(path) ? resolve(workdir, path) : path);
  }
  return paths;
}

/** The calls a table cannot classify: patches (as a tool, or through the shell) and shell argvs. */
function classifyPatchOrArgv(call: ProviderV1ToolCall, input: Readonly<Record<string, unknown>>): ProviderV1ToolUse | undefined {
  const workdir = stringField(input, 'workdir');
  if (call.name === 'apply_patch')
    return patchPaths(typeof call.input === 'string' ? call.input : (stringField(input, 'input') ?? stringField(input, 'patch') ?? ''), workdir);
  if (call.name !== 'shell' && call.name !== 'local_shell' && call.name !== 'container.exec') return undefined;
  const argv = Array.isArray(input.command) ? input.command : [];
  if (argv[0] === 'apply_patch' && typeof argv[1] === 'string') return patchPaths(argv[1], workdir);
  const command = typeof input.command === 'string' ? input.command : argvCommandLine(argv);
  return command ? { command } : {};
}

/** A command's non-zero exit, with its output's tail. */
const exitError = (code: unknown, output?: string) => `exit ${code}${output?.trim() ? `: ${output.trim().slice(-240)}` : ''}`;

/** The error a Codex tool result reports: a command's non-zero exit (its `Process exited with code N` line, or older JSON's `metadata.exit_code`). */
export function readCodexToolError(result: ProviderV1ToolResult): string | undefined {
  if (result.isError) return result.content;
  const exited = /^Process exited with code (\d+)$/m.exec(result.content)?.[1];
  if (exited && exited !== '0') return exitError(exited, /^Output:\n([\s\S]*)$/m.exec(result.content)?.[1]);
  const json = result.content.startsWith('{') ? asRecord(parseJson(result.content)) : undefined;
  const code = asRecord(json?.metadata)?.exit_code;
  return typeof code === 'number' && code !== 0 ? exitError(code, stringField(json, 'output')) : undefined;
}

/** The tool facts of the Codex provider. */
export const CODEX_TOOLS: ToolFacts = {
  table: {
    exec_command: { does: 'command', fields: ['cmd', 'command'] },
    shell_command: { does: 'command', fields: ['cmd', 'command'] },
  },
  classify: classifyPatchOrArgv,
  readError: readCodexToolError,
};
