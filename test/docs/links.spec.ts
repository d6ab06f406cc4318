import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * The repository's documentation stands alone (a clone has nothing beside it): every relative
 * link of README.md and docs/ names a file of the repository, every `#anchor` into a Markdown
 * file names one of its headings (GitHub's slugs), and no page sends a reader outside the
 * repository's tree.
 */
const ROOT = join(__dirname, '..', '..');

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs];
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headings(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const slugs = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && /^#{1,6} /.test(line)) slugs.add(slug(line.replace(/^#{1,6} /, '')));
  }
  return slugs;
}

describe('documentation links', () => {
  const files = markdownFiles();

  it('reads README.md and every page under docs/', () => {
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'architecture.md'));
    expect(files.filter((f) => f.startsWith(join('docs', 'decisions'))).length).toBeGreaterThan(30);
  });

  it('every relative link names a file of the repository, and every anchor a heading of its page', () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(link)) continue; // http(s), mailto
        const [target, anchor] = link.split('#');
        const path = target ? normalize(join(dirname(file), target)) : file;
        if (path.startsWith('..') || !existsSync(join(ROOT, path))) {
          broken.push(`${file}: ${link} (no such file in the repository)`);
          continue;
        }
        if (anchor && path.endsWith('.md') && !headings(path).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no page sends a reader outside the repository (a clone has nothing beside it)', () => {
    const outside = files.filter((file) => /(\.\.\/shared\b|\/work\/shared\b)/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(outside).toEqual([]);
  });
});
