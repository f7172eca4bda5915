#!/usr/bin/env node
// The `ragsync` command runs the bundled build (npm ci / npm install run `npm run build`, which
// writes dist/bundle/: one file compiled with a code cache per command starts faster than hundreds
// of ES modules). During development, `npm run ragsync -- …` runs the TypeScript sources directly.
// CommonJS (bin/package.json): Node starts a CommonJS entry without its ES module loader.
require('../dist/bundle/boot.cjs').boot();
