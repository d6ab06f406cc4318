// Module boundaries, checked by `npm run lint` (depcruise): no import circles anywhere, apps are
// composition roots that import no other app, and libraries import no app. The `@lib/*` aliases
// resolve through tsconfig.json's paths, so a circle through a library's index counts too.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the modules in it cannot be understood, loaded or tested one without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'apps-are-separate',
      severity: 'error',
      comment:
        'apps/<name> is a composition root: it imports libraries, never another app. A module two processes run belongs in libs/ (the capability beside its code, or libs/wiring).',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'libs-import-no-app',
      severity: 'error',
      comment: 'Libraries are what apps are made of: a library that imports an app is the wrong way round.',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing (a typo, a moved file, a missing tsconfig path).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage|data|node_modules)/' },
    // type-only imports are edges too: a circle through `import type` still ties the modules together
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
