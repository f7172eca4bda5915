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
 * Whether the real corpora a suite needs are present. A suite names itself with `title()`: when the
 * corpora are missing on a developer's machine it skips and says why (on stderr and in its title);
 * under CI=true the file fails at once, so CI can never pass by skipping the suites that exercise
 * real git history. Merely importing a helper that checks (daemon-helpers) reports nothing.
 */
export function needCorpora(...bundles: string[]): CorporaCheck {
  const missing = bundles.filter((b) => !existsSync(join(CORPORA, b)));
  if (!missing.length) return { ok: true, reason: '', title: (name) => name };
  const reason =
    `needs ${missing.join(' and ')} in ${CORPORA} (the shared test corpora: put them in ../shared/corpora ` +
    'beside the repository, or set RAGSYNC_CORPORA to their folder; see docs/development.md, "Test corpora")';
  let said = false;
  return {
    ok: false,
    reason,
    title(name) {
      if (process.env.CI === 'true') throw new Error(`CI=true and the test corpora are missing: "${name}" ${reason}`);
      if (!said) process.stderr.write(`skipped: ${reason}\n`);
      said = true;
      return `${name} [skipped: ${reason}]`;
    },
  };
}
