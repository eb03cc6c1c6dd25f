import { defineProject } from 'vitest/config';

/** Packages resolve each other's TypeScript sources in tests (the `@umbel/source` export condition). */
const SOURCE_CONDITIONS = ['@umbel/source', 'node', 'import', 'module', 'default'];

/**
 * The vitest project of a package's own tests (`packages/<name>/vitest.config.ts`).
 *
 * Its files share their worker's modules (`isolate: false`): loading the packages' sources afresh
 * for each of ~240 files was a third of the unit tier's CPU. A file that mocks a module loads what
 * it tests after `vi.resetModules()` (see core's operations/kill-unwritable.test.ts); a file that
 * changes process state (env, umask) puts it back.
 */
export function packageProject(name: string, test: { readonly exclude?: string[] } = {}) {
  return defineProject({
    ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
    resolve: { conditions: SOURCE_CONDITIONS },
    test: { name, include: ['src/**/*.test.ts'], environment: 'node', testTimeout: 60_000, hookTimeout: 60_000, isolate: false, ...test },
  });
}
