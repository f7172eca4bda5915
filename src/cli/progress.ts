import type { Progress } from '../sync/apply.ts';

/** A one-line progress bar on stderr while embedding; nothing when stderr is not a terminal. */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): ((p: Progress) => void) & { end(): void } {
  let drawn = false;
  const draw = (p: Progress) => {
    if (!stream.isTTY || p.type !== 'embedded' || p.total === 0) return;
    const width = 30;
    const filled = Math.round((p.done / p.total) * width);
    stream.write(`\r${p.source} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} embedded`);
    drawn = true;
  };
  return Object.assign(draw, {
    end() {
      if (drawn) stream.write('\n');
    },
  });
}
