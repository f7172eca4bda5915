import type { Progress } from '../sync/apply.ts';
import { endOpenLine, lineOpened } from '../core/term-line.ts';

/**
 * A one-line progress bar on stderr while embedding; nothing when stderr is not a terminal. Its
 * last frame ends with a newline, and a log line written meanwhile ends the bar's line first.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): ((p: Progress) => void) & { end(): void } {
  const fd = (stream as { fd?: number }).fd ?? 2;
  const draw = (p: Progress) => {
    if (!stream.isTTY || p.type !== 'embedded' || p.total === 0) return;
    const width = 30;
    const filled = Math.round((p.done / p.total) * width);
    stream.write(`\r${p.source} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} embedded`);
    lineOpened(fd);
    if (p.done >= p.total) endOpenLine(fd);
  };
  return Object.assign(draw, {
    end() {
      endOpenLine(fd);
    },
  });
}
