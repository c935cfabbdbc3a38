/**
 * The documentation a stranger meets: the README stays a guide (its two commands first, under
 * 300 lines), every file of the project it or a chapter names exists, and nothing sends the
 * reader to a folder outside the repository.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const chapters = readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md'));

/** Paths of the project's own files a Markdown text names: `docs/x.md`, `src/a/b.ts`, links. */
function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./-])((?:docs|src|test|bench|scripts|native|conf|examples|fixtures|static)\/[\w./-]*[\w])/g)) {
    // Globs and placeholders name no one file.
    if (!/[*<>]|NNNNN|NAME|part-N\b/.test(m[1])) found.add(m[1]);
  }
  // `layer/file.ts` in backticks: a source file named from src/ (docs/design.md's way).
  for (const m of text.matchAll(/`([\w-]+\/[\w.-]+\.(?:ts|c|h|mjs|js|json))`/g)) found.add(m[1]);
  return [...found];
}

describe('the README', () => {
  it('starts with the two commands and stays under 300 lines', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThan(300);
    const block = /^# nwax\n\n```bash\n([\s\S]*?)```/.exec(readme)?.[1].trim().split('\n') ?? [];
    expect(block.map((l) => l.replace(/\s+#.*$/, ''))).toEqual(['npm install && npm run build && npm run example', 'npm install && npm test']);
  });

  it('links every chapter of docs/, and every chapter it names exists', () => {
    const linked = [...readme.matchAll(/\]\((docs\/[\w.-]+\.md)\)/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThan(10);
    for (const l of linked) expect(existsSync(join(ROOT, l)), l).toBe(true);
    for (const c of chapters) expect(linked, `docs/${c} is not in the README's table`).toContain(`docs/${c}`);
  });
});

describe('the documentation', () => {
  it.each(['README.md', ...chapters.map((c) => `docs/${c}`)])('%s names only files the repository has', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const missing = namedPaths(text).filter((p) => !existsSync(join(ROOT, p)) && !existsSync(join(ROOT, 'src', p)));
    expect(missing).toEqual([]);
  });

  it('sends no reader to the steering folder for the design', () => {
    for (const file of ['README.md', ...chapters.map((c) => `docs/${c}`)]) {
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(/shared\/DESIGN/);
    }
  });
});
