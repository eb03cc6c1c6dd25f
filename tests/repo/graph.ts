/** Package-graph and bare-tmux checks as pure functions over file contents (tested on planted violations). */
import { builtinModules } from 'node:module';
import { FLOORS, LIBRARY_ONLY, ONLY } from './floors.js';

/** One package as the checks see it. */
export interface PackageInfo {
  readonly name: string;
  readonly dir: string;
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  readonly files: readonly { readonly path: string; readonly text: string }[];
}

const IMPORT_RE =
  /(?:^|[^\w$.])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w$.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[^\w$.])import\s+['"]([^'"]+)['"]|(?:^|[^\w$.])require\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Bare package name of an import specifier, or undefined for relative/builtin ones. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
  if (builtinModules.includes(name)) return undefined;
  return name;
}

/** Every import specifier in a source text (comments are not stripped; keep imports real). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (spec) out.push(spec);
  }
  return out;
}

/** Violations of the package graph, each naming the file and the import. */
export function checkGraph(packages: readonly PackageInfo[], rootDevDependencies: readonly string[]): string[] {
  const problems: string[] = [];
  for (const pkg of packages) {
    const floor = FLOORS[pkg.name];
    if (floor === undefined) {
      problems.push(`${pkg.dir}/package.json: package ${pkg.name} has no floor in tests/repo/floors.ts`);
      continue;
    }
    for (const dep of pkg.dependencies) {
      const depFloor = FLOORS[dep];
      if (depFloor !== undefined && depFloor >= floor)
        problems.push(`${pkg.dir}/package.json: ${pkg.name} (floor ${floor}) depends on ${dep} (floor ${depFloor}): dependencies must point down`);
      if (depFloor !== undefined && ONLY[pkg.name] && !ONLY[pkg.name]?.includes(dep))
        problems.push(`${pkg.dir}/package.json: ${pkg.name} may only depend on ${ONLY[pkg.name]?.join(', ')}, not ${dep}`);
    }
    for (const file of pkg.files) {
      const isTest = /\.test\.ts$|\/__fixtures__\/|\/testing\//.test(file.path);
      for (const spec of importsOf(file.text)) {
        const target = packageOf(spec);
        if (!target || target === pkg.name) continue;
        const targetFloor = FLOORS[target];
        if (targetFloor !== undefined && targetFloor >= floor) {
          problems.push(`${file.path}: imports '${spec}' — ${pkg.name} (floor ${floor}) must not import ${target} (floor ${targetFloor})`);
          continue;
        }
        if (targetFloor !== undefined && !isTest && ONLY[pkg.name] && !ONLY[pkg.name]?.includes(target)) {
          problems.push(`${file.path}: imports '${spec}' — ${pkg.name} may only import ${ONLY[pkg.name]?.join(', ')}`);
          continue;
        }
        const library = LIBRARY_ONLY[pkg.name];
        if (targetFloor !== undefined && library && !isTest && !library.bins.includes(file.path) && !library.only.includes(target)) {
          problems.push(
            `${file.path}: imports '${spec}' — the library part of ${pkg.name} may only import ${library.only.join(', ')} (only its bins compose more)`,
          );
          continue;
        }
        const declared = pkg.dependencies.includes(target) || (isTest && (pkg.devDependencies.includes(target) || rootDevDependencies.includes(target)));
        if (!declared)
          problems.push(
            `${file.path}: imports '${spec}' but ${pkg.name}'s package.json does not declare ${target}${isTest ? ' (not even as a devDependency)' : ' in dependencies or peerDependencies'}`,
          );
      }
    }
  }
  return problems;
}

const TMUX_CALL_RE = /\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync|execa|execaSync|\$)\s*\(\s*(['"`])tmux\b/;
const TMUX_SHELL_RE = /(['"`])\s*tmux\s+(?:-|[a-z])/;

/** Lines outside @umbel/tmux that run tmux (a process call with "tmux", or a shell string starting with tmux). */
export function findBareTmux(files: readonly { readonly path: string; readonly text: string }[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    if (file.path.startsWith('packages/tmux/')) continue;
    file.text.split('\n').forEach((line, i) => {
      const trimmed = line.trim();
      if (trimmed.startsWith('//') || trimmed.startsWith('*')) return;
      if (TMUX_CALL_RE.test(line) || TMUX_SHELL_RE.test(line)) problems.push(`${file.path}:${i + 1}: runs tmux outside @umbel/tmux: ${trimmed.slice(0, 120)}`);
    });
  }
  return problems;
}
