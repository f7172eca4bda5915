#!/usr/bin/env node
// The `ragsync` command runs the compiled build (npm ci / npm install run `npm run build`).
// During development, `npm run ragsync -- …` runs the TypeScript sources directly.
await import('../dist/cli/run.js');
