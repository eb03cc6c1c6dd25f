/**
 * Writing the template for one NAME: every file under template/, with `{{key}}` replaced by the
 * names (only the keys of ScaffoldNames: the recording's own `{{cwd}}` and `{{transcript}}` stay),
 * in file names too; a `.tmpl` suffix is dropped (it keeps template files out of this repository's
 * tools) and `gitignore` becomes `.gitignore` (npm pack would drop a `.gitignore`).
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaffoldError, type ScaffoldNames } from './names.js';

/** The template this package ships (from dist/ and src/ alike). */
export const TEMPLATE_DIR = fileURLToPath(new URL('../template', import.meta.url));

const KEY = /\{\{(name|dir|id|title|bin|binEnv|homeEnv)\}\}/g;

/** `text` with every `{{key}}` of the names filled in. */
export function fill(text: string, names: ScaffoldNames): string {
  return text.replace(KEY, (_, key: keyof ScaffoldNames) => names[key]);
}

/** Where a template file goes in the generated package (a path relative to its root). */
export function targetPath(templatePath: string, names: ScaffoldNames): string {
  const path = fill(templatePath, names).replace(/\.tmpl$/, '');
  return path === 'gitignore' ? '.gitignore' : path;
}

async function templateFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(TEMPLATE_DIR, join(entry.parentPath, entry.name)))
    .sort();
}

/** Refuses a target that exists and is not an empty folder. */
async function checkTarget(target: string): Promise<void> {
  const found = await stat(target).catch(() => undefined);
  if (!found) return;
  if (!found.isDirectory()) throw new ScaffoldError(`${target} exists and is not a folder: choose another name or remove it`);
  if ((await readdir(target)).length > 0) throw new ScaffoldError(`${target} exists and is not empty: choose another name or empty it`);
}

/** Generates the package for `names` in `target`; returns the files written (relative paths). */
export async function generate(names: ScaffoldNames, target: string): Promise<string[]> {
  await checkTarget(target);
  const written: string[] = [];
  for (const file of await templateFiles(TEMPLATE_DIR)) {
    const path = targetPath(file, names);
    const out = join(target, path);
    await mkdir(dirname(out), { recursive: true });
    const executable = path.startsWith('bin/') || path.startsWith('scripts/');
    await writeFile(out, fill(await readFile(join(TEMPLATE_DIR, file), 'utf8'), names), { mode: executable ? 0o755 : 0o644 });
    written.push(path);
  }
  return written.sort();
}
