#!/usr/bin/env node
// The `ragsync` command runs the bundled build (npm ci / npm install run `npm run build`, which
// writes dist/bundle/: one-shot commands start faster from a few files than from hundreds).
// During development, `npm run ragsync -- …` runs the TypeScript sources directly.
await import('../dist/bundle/run.js');
