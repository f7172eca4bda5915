/**
 * The layer rules: every import points down the stack (docs/architecture.md).
 *   core → config → {sources, chunking, embedding, storage} → sync → search → profiles → answer → engine
 *   → daemon → {server, mcp} → composition roots {cli, ai, knowledge, index.ts, builtin.ts}
 * A folder may import from its own layer's folder and from any layer below; never from above.
 */
const ORDER = [
  ['core'],
  ['config'],
  ['sources', 'chunking', 'embedding', 'storage'],
  ['sync'],
  ['search'],
  ['profiles'],
  ['answer'],
  ['engine'],
  ['daemon'],
  ['server', 'mcp'],
  ['cli', 'ai', 'knowledge', 'index.ts', 'builtin.ts'],
];
const path = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})($|/)`;

const layerRules = ORDER.slice(0, -1).map((layer, i) => ({
  name: `${layer.join('-')}-imports-only-below`,
  comment: `${layer.join(', ')} may import only from layers below (${ORDER.slice(0, i).flat().join(', ') || 'none'}) and itself`,
  severity: 'error',
  from: { path: path(layer) },
  to: { path: path(ORDER.slice(i + 1).flat()) },
}));

// Siblings of the middle layer each know one outside thing: none builds on another.
const siblings = ['sources', 'chunking', 'embedding', 'storage'].map((name, _, all) => ({
  name: `${name}-does-not-import-its-siblings`,
  comment: `${name} stands beside ${all.filter((n) => n !== name).join(', ')}, not on them`,
  severity: 'error',
  from: { path: path([name]) },
  to: { path: path(all.filter((n) => n !== name)) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'modules must not depend on each other in a loop',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...siblings,
    {
      name: 'profiles-are-plugged-in-by-the-roots',
      comment: 'only the composition roots (cli, ai, knowledge, index.ts, builtin.ts) choose profiles; the engine receives them',
      severity: 'error',
      from: { path: '^src/', pathNot: `${path(['cli', 'ai', 'knowledge', 'index.ts', 'builtin.ts', 'profiles'])}` },
      to: { path: path(['profiles']) },
    },
    {
      name: 'the-engine-builds-the-live-objects',
      comment:
        'embedders, stores and rerankers are built from a config in src/engine only (openEngine): every surface takes them from it, ' +
        'so none opens a searcher without the configured reranker or asks an embedder its size twice (types may be imported anywhere)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(engine/|storage/|embedding/|search/create-reranker\\.ts$)' },
      to: { path: '^src/(storage/open|embedding/create|search/create-reranker)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'one-place-names-the-backend',
      comment: 'storage/open.ts is the only code outside a backend that knows which one is behind the roles',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storage/(open\\.ts|sqlite/)' },
      to: { path: '^src/storage/sqlite/' },
    },
    {
      name: 'one-place-names-the-postgres-backend',
      comment: 'storage/open.ts is the only code outside the Postgres backend that knows it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storage/(open\\.ts|postgres/)' },
      to: { path: '^src/storage/postgres/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(tests|bench|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
