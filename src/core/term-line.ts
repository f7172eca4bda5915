import { writeSync } from 'node:fs';

/**
 * A line being redrawn in place on a terminal (a progress bar's "\r…" frames). Anything else
 * written to that terminal ends it first, so a log line never lands glued to a bar's last frame.
 */
let openOn: number | null = null;

/** The caller just drew an unterminated line on `fd`. */
export function lineOpened(fd: number): void {
  openOn = fd;
}

/** Ends the open line on `fd` (or on any terminal fd when both show the same screen). */
export function endOpenLine(fd: number = openOn ?? -1): void {
  if (openOn === null) return;
  if (fd === openOn || fd === 1 || fd === 2) {
    writeSync(openOn, '\n');
    openOn = null;
  }
}
