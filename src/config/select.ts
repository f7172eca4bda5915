import { RagsyncError, EXIT } from '../core/errors.ts';
import type { Config, SourceConfig } from './load.ts';

/** The configured sources named by --source, or all; an unknown name is a usage error. */
export function selectSources(config: Pick<Config, 'sources'>, names?: string[]): SourceConfig[] {
  if (!names?.length) return config.sources;
  const known = config.sources.map((s) => s.name);
  for (const n of names) {
    if (!known.includes(n)) throw new RagsyncError(`unknown source "${n}" (configured: ${known.join(', ')})`, EXIT.usage);
  }
  return config.sources.filter((s) => names.includes(s.name));
}
