import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that run far longer than their size suggests (they replay or index whole corpora), started
 * first. Vitest orders by an earlier run's durations when it has them, else by file size: in a
 * fresh checkout (CI) these would start last and keep one worker busy after the others finished.
 */
const LONG = [
  'tests/e2e/replay-classics.test.ts',
  'tests/e2e/delete-guard-history.test.ts',
  'tests/e2e/chunk-stability.test.ts',
  'tests/e2e/kill.test.ts',
  'tests/e2e/ranking-modes-corpora.test.ts',
];

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => LONG.findIndex((l) => f.moduleId.endsWith(l));
    return [...sorted.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b)), ...sorted.filter((f) => rank(f) < 0)];
  }
}
