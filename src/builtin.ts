import { loadConfig as load, parseConfig as parse, type Config } from './config/load.ts';
import { builtinProfiles } from './profiles/index.ts';
import { builtinSourceKinds } from './sources/registry.ts';

/** The engine's config loader bound to the built-in profiles and source kinds: what the CLI and the library use. */
export const loadConfig = (flag?: string): Config => load(builtinProfiles, builtinSourceKinds, flag);
export const parseConfig = (raw: unknown, file: string | null = null): Config => parse(builtinProfiles, builtinSourceKinds, raw, file);
export { builtinProfiles, builtinSourceKinds };
