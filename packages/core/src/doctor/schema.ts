/**
 * `umbel doctor`: its input and its report, one schema each, shared by the CLI (`--json`) and MCP
 * (`umbel_doctor`). A report is a checklist per provider: pass ✓, fail ✗ (with one fix hint), skip –.
 */
import * as z from 'zod';
import { DurationSchema, EnvMapSchema } from '../contract/schemas.js';

/** What `doctor` is asked to check. */
export const DoctorOptionsSchema = z
  .object({
    providers: z.array(z.string().min(1)).optional().describe('Provider ids to check; default every loaded provider whose CLI binary is found'),
    turn: z.boolean().optional().describe("Also run one tiny turn end to end: this makes ONE small model request on the user's account"),
    env: EnvMapSchema.optional().describe('Extra environment for the scratch worker, as for spawn'),
    startupTimeout: DurationSchema.optional().describe('How long the scratch worker may take to reach its ready prompt (default 30s)'),
  })
  .strict();
export type DoctorOptions = z.input<typeof DoctorOptionsSchema>;
export type DoctorOptionsParsed = z.output<typeof DoctorOptionsSchema>;

/** One item of a checklist. */
export const DoctorCheckSchema = z.object({
  id: z.enum(['binary', 'version', 'login', 'billing', 'endpoint', 'launch', 'session-hook', 'payload', 'turn']),
  title: z.string(),
  status: z.enum(['pass', 'fail', 'skip']).describe('pass ✓, fail ✗, skip – (not checked, or informational)'),
  detail: z.string().optional(),
  /** One fix hint, on a failure. */
  hint: z.string().optional(),
});
export type DoctorCheck = z.infer<typeof DoctorCheckSchema>;
export type DoctorCheckId = DoctorCheck['id'];

/** The checklist of one provider. */
export const DoctorProviderSchema = z.object({
  provider: z.string(),
  displayName: z.string(),
  ok: z.boolean().describe('No check failed'),
  binary: z.string().optional().describe('Absolute path of the CLI'),
  version: z.string().optional().describe('The version the CLI reports'),
  verifiedVersions: z.array(z.string()),
  checks: z.array(DoctorCheckSchema),
});
export type DoctorProvider = z.infer<typeof DoctorProviderSchema>;

/** The whole report. */
export const DoctorReportSchema = z.object({
  ok: z.boolean().describe('Every checked provider passed'),
  turn: z.boolean().describe('Whether a model turn was made'),
  providers: z.array(DoctorProviderSchema),
  sandbox: z
    .object({
      available: z.boolean().describe('`spawn --sandbox` works on this machine (srt ran a command confined)'),
      detail: z.string().optional().describe('Why not'),
      hint: z.string().optional().describe('How to get it'),
    })
    .optional()
    .describe('Whether confined workers (--sandbox) can be had here; informational: the report is ok without it'),
  unloaded: z
    .array(z.object({ package: z.string(), reason: z.string() }))
    .optional()
    .describe('Provider packages that could not be loaded (the report is then not ok): the package and why'),
});
export type DoctorReport = z.infer<typeof DoctorReportSchema>;
