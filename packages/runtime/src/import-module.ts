/**
 * `import()` of a module that is not bundled with its caller: a provider package, `@umbel/mcp`,
 * `@umbel/workflow`. The `umbel` bin runs its bundle as a script compiled from V8's code cache
 * (@umbel/cli's boot), and node 20 gives such a script no `import()` of its own ("A dynamic import
 * callback was not specified"): the bin hands in its own, once, before the command runs.
 */
type Importer = (specifier: string) => Promise<unknown>;

let importer: Importer | undefined;

/** Use `fn` for every {@link importModule} from now on (the bin's loader calls it once). */
export function setModuleImporter(fn: Importer): void {
  importer = fn;
}

/** Import `specifier` (a package name or a file URL). */
export function importModule<T = Record<string, unknown>>(specifier: string): Promise<T> {
  return (importer ? importer(specifier) : import(specifier)) as Promise<T>;
}
