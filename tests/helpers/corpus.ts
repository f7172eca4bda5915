import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `docs` small Markdown files with `sections` distinct sections each into `dir`: every
 * section is its own chunk text, so a test knows roughly how many texts a run has to embed.
 */
export function writeCorpus(dir: string, docs: number, sections = 3): void {
  mkdirSync(dir, { recursive: true });
  for (let d = 0; d < docs; d++) {
    const parts = [`# Document ${d}\n`];
    for (let s = 0; s < sections; s++) {
      const words = Array.from({ length: 60 }, (_, w) => `w${d}x${s}y${(w * 7 + d) % 97}`).join(' ');
      parts.push(`## Section ${s} of ${d}\n\n第${d}篇第${s}节。${words}\n`);
    }
    writeFileSync(join(dir, `doc-${String(d).padStart(3, '0')}.md`), parts.join('\n'));
  }
}
