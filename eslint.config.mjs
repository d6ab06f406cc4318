// ESLint flat config: TypeScript rules that catch real mistakes (floating promises are the
// ones that lose events), without style rules that fight the formatter.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What the checkout page's script may use of the browser (anything else is a no-undef error; TypeScript checks the types). */
const BROWSER_GLOBALS = Object.fromEntries(
  ['window', 'document', 'navigator', 'fetch', 'URL', 'URLSearchParams', 'HTMLElement', 'HTMLButtonElement', 'HTMLInputElement', 'HTMLProgressElement', 'HTMLAnchorElement', 'Uint8Array', 'ParentNode'].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'bench/results/**', 'scratch/**'] }, // scratch/: your own tries (README, typed client), ignored by git too
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // end-to-end tests read untyped JSON answers; production code keeps the rule
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // the checkout page's browser script (decision 0027): a classic script for browsers, also
    // type-checked by TypeScript through libs/checkout-page/assets/tsconfig.json
    files: ['libs/checkout-page/assets/**/*.js'],
    languageOptions: { sourceType: 'script', ecmaVersion: 2017, globals: BROWSER_GLOBALS },
    rules: { strict: ['error', 'function'], 'no-var': 'off', '@typescript-eslint/no-unused-vars': ['error', { caughtErrors: 'none' }] },
  },
);
