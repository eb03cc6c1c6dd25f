/** What Codex's tool calls do (`doClassifyTool`, `doReadToolError`; codex-FACTS.md: "Tools"). Pure. */
import { isAbsolute, resolve } from 'node:path';
import type { ProviderV1ToolCall, ProviderV1ToolResult, ProviderV1ToolUse, ToolFacts } from '@umbel/provider';
import { argvCommandLine, asRecord, classifyTool, parseJson, stringField } from '@umbel/provider';

/** The files a Codex patch writes (`*** Add File:`, `*** Move to:`) and edits (`*** Update File:`, `*** Delete File:`). */
export function patchPaths(patch: string, workdir?: string): Required<Pick<ProviderV1ToolUse, 'edited' | 'written'>> {
  const at = (p: string) => (workdir && !isAbsolute(p) ? resolve(workdir, p) : p);
  const edited: string[] = [];
  const written: string[] = [];
  for (const line of patch.split('\n')) {
    const m = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line);
    if (!m) continue;
    const path = at(m[2] as string);
    if (m[1] === 'Add File' || m[1] === 'Move to') written.push(path);
    else edited.push(path);
  }
  return { edited, written };
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

/** The error a Codex tool result reports: a command's non-zero exit (with the output's tail). */
export function readCodexToolError(result: ProviderV1ToolResult): string | undefined {
  if (result.isError) return result.content;
  const exited = /^Process exited with code (\d+)$/m.exec(result.content);
  if (exited && exited[1] !== '0') {
    const output = /^Output:\n([\s\S]*)$/m.exec(result.content)?.[1]?.trim();
    return `exit ${exited[1]}${output ? `: ${output.slice(-240)}` : ''}`;
  }
  const json = result.content.startsWith('{') ? asRecord(parseJson(result.content)) : undefined;
  const code = asRecord(json?.metadata)?.exit_code;
  if (typeof code !== 'number' || code === 0) return undefined;
  return `exit ${code}${typeof json?.output === 'string' && json.output.trim() ? `: ${json.output.trim().slice(-240)}` : ''}`;
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

/** Classify one Codex tool call. */
export const classifyCodexTool = (call: ProviderV1ToolCall): ProviderV1ToolUse => classifyTool(CODEX_TOOLS, call);
