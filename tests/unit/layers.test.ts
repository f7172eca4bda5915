import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';

// The rules are read from the repository's own .dependency-cruiser.cjs, so these tests check the
// rules CI runs (npm run lint:deps), not a copy of them.
let options: ICruiseOptions;
const tsConfig = extractTSConfig(join(REPO_ROOT, 'tsconfig.json'));

async function violations(baseDir: string): Promise<{ rule: string; from: string; to: string }[]> {
  const { output } = await cruise(
    ['src'],
    { ...options, baseDir, tsConfig: { fileName: join(REPO_ROOT, 'tsconfig.json') } },
    {},
    { tsConfig },
  );
  const result = output as ICruiseResult;
  // An import that does not resolve matches no path rule: it would hide a violation, so none may exist.
  const unresolvedLocal = result.modules.flatMap((m) =>
    m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${m.source} -> ${d.module}`),
  );
  expect(unresolvedLocal).toEqual([]);
  return result.summary.violations
    .map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }))
    .sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`));
}

let fixture: ReturnType<typeof tempDir>;
beforeAll(async () => {
  options = await extractDepcruiseOptions(join(REPO_ROOT, '.dependency-cruiser.cjs'));
  fixture = tempDir('ragsync-layers-');
  const files: Record<string, string> = {
    // Allowed: downward imports, a root choosing a profile, open.ts naming the backend, the engine opening a store, a type from open.ts anywhere.
    'src/core/types.ts': 'export interface Row { id: number }\n',
    'src/config/load.ts': "import type { Row } from '../core/types.ts';\nexport const load = (r: Row) => r;\n",
    'src/storage/sqlite/writer.ts': "import type { Row } from '../../core/types.ts';\nexport const write = (r: Row) => r;\n",
    'src/storage/open.ts': "import { write } from './sqlite/writer.ts';\nexport const open = () => write;\n",
    'src/profiles/markdown.ts': "import { load } from '../config/load.ts';\nexport const profile = load;\n",
    'src/engine/engine.ts': "import { open } from '../storage/open.ts';\nexport const engine = open;\n",
    'src/cli/main.ts': "import { profile } from '../profiles/markdown.ts';\nimport { engine } from '../engine/engine.ts';\nimport type { open } from '../storage/open.ts';\nexport const main = (o: typeof open) => [profile, engine, o];\n",
    // a surface opening a store itself rather than through the engine.
    'src/server/http.ts': "import { open } from '../storage/open.ts';\nexport const serve = open;\n",
    // Forbidden, one of each kind:
    // core reaching up, and only for a type (type-only imports must count too).
    'src/core/hash.ts': "import type { Plan } from '../sync/plan.ts';\nexport const hash = (p: Plan) => p;\n",
    'src/sync/plan.ts': 'export interface Plan { n: number }\n',
    // one middle-layer sibling building on another.
    'src/chunking/split.ts': "import { embed } from '../embedding/hash.ts';\nexport const split = embed;\n",
    'src/embedding/hash.ts': 'export const embed = 1;\n',
    // the engine picking a profile (a downward import, so only the plug-in rule catches it).
    'src/daemon/daemon.ts': "import { profile } from '../profiles/markdown.ts';\nexport const daemon = profile;\n",
    // the backend named outside storage/open.ts.
    'src/sync/run.ts': "import { write } from '../storage/sqlite/writer.ts';\nexport const run = write;\n",
    // a loop inside one folder (no layer rule sees it).
    'src/search/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
    'src/search/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(fixture.dir, path)), { recursive: true });
    writeFileSync(join(fixture.dir, path), text);
  }
});
afterAll(() => fixture.cleanup());

describe('layer rules (.dependency-cruiser.cjs)', () => {
  it('report each forbidden import in a fixture tree, and nothing else', async () => {
    expect(await violations(fixture.dir)).toEqual([
      { rule: 'chunking-does-not-import-its-siblings', from: 'src/chunking/split.ts', to: 'src/embedding/hash.ts' },
      { rule: 'core-imports-only-below', from: 'src/core/hash.ts', to: 'src/sync/plan.ts' },
      { rule: 'no-circular', from: 'src/search/a.ts', to: 'src/search/b.ts' }, // a loop is reported once
      { rule: 'one-place-names-the-backend', from: 'src/sync/run.ts', to: 'src/storage/sqlite/writer.ts' },
      { rule: 'profiles-are-plugged-in-by-the-roots', from: 'src/daemon/daemon.ts', to: 'src/profiles/markdown.ts' },
      { rule: 'the-engine-builds-the-live-objects', from: 'src/server/http.ts', to: 'src/storage/open.ts' },
    ]);
  });

  it('hold on the real src', async () => {
    expect(await violations(REPO_ROOT)).toEqual([]);
  });
});
