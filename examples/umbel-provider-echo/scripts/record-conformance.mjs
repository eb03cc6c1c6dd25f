#!/usr/bin/env node
// Records what umbel's conformance suite (`testProvider` from @umbel/core/testing) replays for this
// provider: the real echo-agent, driven by the real `umbel` CLI on tmux, in four scenarios (an
// answer, a permission request, an API error, a sign-in screen), with @umbel/core/testing's
// `recordConformance` (it says where each part comes from).
//
//   npm run record:conformance      (it builds first) → src/__fixtures__/conformance.json
//
// It needs `umbel` and `@umbel/core` installed as devDependencies; in the umbel repository, where
// this example is not installed, it uses the repository's built packages (run `pnpm build` there
// first). Calls nothing but echo-agent, which needs no network.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const AGENT = join(PACKAGE, 'bin', 'echo-agent.js');

/** The umbel repository's own copy of a package (this example is not installed there). */
function repoPackage(repoPath, built) {
  const dir = join(PACKAGE, '..', '..', repoPath);
  if (!existsSync(join(dir, built)))
    throw new Error(`${repoPath} is not installed here, and the umbel repository's copy is not built (no ${built}): run \`pnpm build\``);
  return dir;
}

const installed = (name) => {
  try {
    return dirname(createRequire(join(PACKAGE, 'package.json')).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
};
const CORE = installed('@umbel/core') ?? repoPackage('packages/core', 'dist/testing/index.js');
const UMBEL = installed('umbel') ?? repoPackage('packages/umbel', 'package.json');
const { recordConformance, umbelBin } = await import(pathToFileURL(join(CORE, 'dist', 'testing', 'index.js')).href);

const out = join(PACKAGE, 'src', '__fixtures__', 'conformance.json');
await recordConformance({
  packageDir: PACKAGE,
  providerId: 'echo',
  agentBin: AGENT,
  agentName: 'echo-agent',
  env: (root) => ({ UMBEL_ECHO_BIN: AGENT, ECHO_AGENT_HOME: join(root, 'agent-home') }),
  hookKinds: (module) => Object.values(module.ECHO_HOOK_EVENTS),
  links: { '@umbel/core': CORE },
  umbelBin: umbelBin(UMBEL),
  out,
  recordedBy: 'examples/umbel-provider-echo/scripts/record-conformance.mjs',
});
process.stdout.write(`recorded the answer, permission, API error and sign-in scenarios into ${out}\n`);
