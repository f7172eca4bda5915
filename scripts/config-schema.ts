// Writes config/schema.json from the zod schema (`npm run schema`); tests/unit/config-schema.test.ts
// fails while the file differs from what this would write.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_FILE, configJsonSchemaText } from '../src/config/json-schema.ts';
import { builtinSourceKinds } from '../src/sources/registry.ts';

writeFileSync(join(import.meta.dirname, '..', SCHEMA_FILE), configJsonSchemaText(builtinSourceKinds));
console.log(`wrote ${SCHEMA_FILE}`);
