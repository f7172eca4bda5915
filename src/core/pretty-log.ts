import { writeSync } from 'node:fs';

/**
 * A pino destination for people at a terminal: "12:00:01 INFO  run ok  runId=3 embedded=120".
 * Written here rather than pulling in pino-pretty (and its dependency tree) for a dozen lines.
 * Machines (pm2 log files, pipes) get pino's JSON unchanged.
 */
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

export function formatLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { level, time, msg, ...rest } = rec;
  const t = typeof time === 'number' ? new Date(time).toISOString().slice(11, 19) : '';
  const lv = (LEVELS[level as number] ?? String(level)).padEnd(5);
  const fields = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${t} ${lv} ${msg ?? ''}${fields ? `  ${fields}` : ''}\n`;
}

export function prettyDestination(fd: number): { write(line: string): void } {
  return {
    write(line: string) {
      for (const l of line.split('\n')) if (l) writeSync(fd, formatLine(l));
    },
  };
}
