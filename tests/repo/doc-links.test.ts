/**
 * The docs point only at things a reader has: a relative link in the README or docs/ names a file
 * of the repository; a package README (its npm page, shipped without docs/) links nothing
 * relative; no page names a path outside the repository (the developers' machine, `shared/`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function pages(): { file: string; packageReadme: boolean }[] {
  const out = [{ file: join(root, 'README.md'), packageReadme: false }];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const readme = join(root, 'packages', dir, 'README.md');
    if (existsSync(readme)) out.push({ file: readme, packageReadme: true });
  }
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) out.push({ file: join(dir, entry.name), packageReadme: false });
    }
  };
  walk(join(root, 'docs'));
  return out;
}

/** Markdown link targets `](target)` outside code blocks, without their #fragment. */
function linkTargets(text: string): string[] {
  const prose = text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => (m[1] as string).split('#')[0] as string).filter((t) => t !== '');
}

describe('documentation references', () => {
  const all = pages();

  it('finds the pages', () => {
    expect(all.length).toBeGreaterThan(10);
  });

  it('every relative link names a file of the repository; package READMEs link absolutely', () => {
    const problems: string[] = [];
    for (const { file, packageReadme } of all) {
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const where = relative(root, file);
        if (packageReadme) problems.push(`${where}: relative link ${target} (the npm page has no such file; link GitHub)`);
        else if (!existsSync(join(dirname(file), target))) problems.push(`${where}: ${target} does not exist`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('no page names a path outside the repository', () => {
    const problems: string[] = [];
    for (const { file } of all) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\/work\/|(?<![\w.-])shared\/(design|reference|hooks)\b/.test(line)) problems.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(problems).toEqual([]);
  });
});
