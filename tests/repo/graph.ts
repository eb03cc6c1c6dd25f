/** Package-graph and bare-tmux checks as pure functions over file contents (tested on planted violations). */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import { FLOORS, LIBRARY_ONLY, ONLY } from './floors.js';

/** One package as the checks see it. */
export interface PackageInfo {
  readonly name: string;
  readonly dir: string;
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  /** Peers marked optional (peerDependenciesMeta): listed in `dependencies` too, but npm installs none of them. */
  readonly optionalPeers?: readonly string[];
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
    problems.push(...installedForLibraryUsers(pkg));
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

/** What a LIBRARY_ONLY package makes every library user install beyond its `only` (its bins' needs must be optional peers). */
function installedForLibraryUsers(pkg: PackageInfo): string[] {
  const library = LIBRARY_ONLY[pkg.name];
  if (!library) return [];
  return pkg.dependencies
    .filter((dep) => FLOORS[dep] !== undefined && !library.only.includes(dep) && !pkg.optionalPeers?.includes(dep))
    .map(
      (dep) =>
        `${pkg.dir}/package.json: ${pkg.name} makes every library user install ${dep}; only its bins need it: make it an optional peer (peerDependenciesMeta)`,
    );
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

/** The module a relative import names, among `known` paths (`./x.js` → `x.ts`), or undefined. */
function resolveRelative(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = posix.join(posix.dirname(from), specifier);
  const stem = base.replace(/\.(m?js|m?ts)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.mts`, `${stem}.js`, `${stem}.mjs`, `${stem}/index.ts`]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Import cycles among the library modules (type-only imports included, tests left out): each a
 * strongly connected component of two or more modules, or one that imports itself, as the
 * modules' paths. Tarjan's algorithm over the relative imports.
 */
export function findImportCycles(files: readonly { readonly path: string; readonly text: string }[]): string[][] {
  const modules = files.filter((f) => !/\.test\.[cm]?[jt]s$/.test(f.path));
  const known = new Set(modules.map((f) => f.path));
  const edges = new Map(modules.map((f) => [f.path, importsOf(f.text).flatMap((s) => resolveRelative(f.path, s, known) ?? [])]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of known) if (!index.has(v)) visit(v);
  return cycles;
}
