import { createProfileRegistry } from '../core/profile.ts';
import { bookmarksProfile } from './bookmarks/index.ts';
import { classicsProfile } from './classics/index.ts';
import { codeProfile } from './code/index.ts';
import { markdownProfile } from './markdown.ts';

/** The profiles ragsync ships, by name: markdown (any Markdown), classics, bookmarks, code. */
export const builtinProfiles = createProfileRegistry([markdownProfile, classicsProfile, bookmarksProfile, codeProfile]);
