#!/usr/bin/env node
// Records what umbel's conformance suite (`testProvider` from @umbel/core/testing) replays for this
// provider: {{bin}}, driven by the real `umbel` CLI on tmux, in four scenarios (an answer, a
// permission request, an API error, a sign-in screen after `{{bin}} logout`), with
// @umbel/core/testing's `recordConformance` (it says where each part comes from). The worker's
// folder and transcript path become `{{cwd}}` and `{{transcript}}`, which the replay fills in.
//
//   npm run record:conformance      (it builds first) → src/__fixtures__/conformance.json
//
// It needs tmux on PATH and `umbel` and `@umbel/core` installed (devDependencies). For your own CLI:
// change the variables below (its binary and home), make it answer the prompts `recordConformance`
// sends (an answer, `ASK <file>`, `FAIL <message>`), and point it at a local mock of its model
// service, never at a real one.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedPackageDir, recordConformance, umbelBin } from '@umbel/core/testing';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const AGENT = join(PACKAGE, 'bin', '{{bin}}.js');
const need = (name) => {
  const dir = installedPackageDir(PACKAGE, name);
  if (!dir) throw new Error(`${name} is not installed: npm install --save-dev ${name}`);
  return dir;
};

const out = join(PACKAGE, 'src', '__fixtures__', 'conformance.json');
await recordConformance({
  packageDir: PACKAGE,
  providerId: '{{id}}',
  agentBin: AGENT,
  agentName: '{{bin}}',
  env: (root) => ({ '{{binEnv}}': AGENT, '{{homeEnv}}': join(root, 'agent-home') }),
  hookKinds: (module) => Object.values(module.facts.hooks.events),
  links: { '@umbel/provider': need('@umbel/provider') },
  umbelBin: umbelBin(need('umbel')),
  out,
  recordedBy: 'scripts/record-conformance.mjs',
});
process.stdout.write(`recorded the answer, permission, API error and sign-in scenarios into ${out}\n`);
