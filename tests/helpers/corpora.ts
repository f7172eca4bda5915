import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CORPORA } from './tmp.ts';

export interface CorporaCheck {
  /** Every bundle the suite needs is present. */
  ok: boolean;
  /** Why the suite skips ('' when it runs). */
  reason: string;
  /** A suite title that carries the skip reason when the corpora are missing. */
  title(name: string): string;
}

/**
 * Whether the real corpora a suite needs are present. Missing on a developer's machine: the suite
 * skips and says why (once on stderr, and in its title). Missing under CI=true: the file fails at
 * once, so CI can never pass by skipping the suites that exercise real git history.
 */
export function needCorpora(...bundles: string[]): CorporaCheck {
  const missing = bundles.filter((b) => !existsSync(join(CORPORA, b)));
  if (!missing.length) return { ok: true, reason: '', title: (name) => name };
  const reason =
    `needs ${missing.join(' and ')} in ${CORPORA} (the shared test corpora: put them in ../shared/corpora ` +
    'beside the repository, or set RAGSYNC_CORPORA to their folder; see README, "Test corpora")';
  if (process.env.CI === 'true') throw new Error(`CI=true and the test corpora are missing: this suite ${reason}`);
  process.stderr.write(`skipped: ${reason}\n`);
  return { ok: false, reason, title: (name) => `${name} [skipped: ${reason}]` };
}
