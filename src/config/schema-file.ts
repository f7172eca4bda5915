/** Where the config's JSON Schema is published, relative to the package root. */
export const SCHEMA_FILE = 'config/schema.json';
