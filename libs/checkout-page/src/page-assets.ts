import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The page's script and stylesheet are real files, `libs/checkout-page/assets/checkout.js` (type-
 * checked JavaScript, linted with browser globals) and `checkout.css`, read once when the app
 * starts. Their folder is found from the project root — the nearest directory above this module
 * holding package.json — so the same path works from the sources (jest, swc-node: this file is
 * libs/checkout-page/src/) and from the build `npm start` runs (dist/libs/checkout-page/src/),
 * with no copying step in the build.
 */
export const PAGE_ASSETS_DIR = join('libs', 'checkout-page', 'assets');

export interface PageAssets {
  script: string;
  style: string;
}

/** The nearest directory at or above `from` that holds package.json. */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`checkout page: no package.json above ${from}, so its assets (${PAGE_ASSETS_DIR}) cannot be found`);
    dir = parent;
  }
}

/** Reads checkout.js and checkout.css (a missing file stops the app at start, with its path). */
export function readPageAssets(root: string = projectRoot()): PageAssets {
  const dir = join(root, PAGE_ASSETS_DIR);
  return { script: readFileSync(join(dir, 'checkout.js'), 'utf8'), style: readFileSync(join(dir, 'checkout.css'), 'utf8') };
}
