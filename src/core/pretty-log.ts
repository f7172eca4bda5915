import { writeSync } from 'node:fs';
import { endOpenLine } from './term-line.ts';
import { visible } from './text/visible.ts';

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
  // A list of records (a run's sources) reads better one per line than as a JSON array.
  const lists = Object.entries(rest).filter(([, v]) => Array.isArray(v) && v.length > 0 && v.every(isRecord));
  const fields = Object.entries(rest)
    .filter(([k]) => !lists.some(([l]) => l === k))
    .map(([k, v]) => `${k}=${scalar(v)}`)
    .join(' ');
  const below = lists.flatMap(([, v]) => (v as Record<string, unknown>[]).map((r) => `\n    ${recordLine(r)}`)).join('');
  return `${t} ${lv} ${msg ?? ''}${fields ? `  ${fields}` : ''}${below}\n`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A commit id shortened as git does; other values as they are (JSON for non-strings). */
function scalar(v: unknown): string {
  if (typeof v === 'string') return /^[0-9a-f]{40}$/.test(v) ? v.slice(0, 7) : v;
  return JSON.stringify(v);
}

/** "classics  status=ok commit=acf8e42 written(added=3 chunks=10 texts=10)": nulls and zero counts left out. */
function recordLine(r: Record<string, unknown>): string {
  const { name, source, ...rest } = r;
  const head = typeof name === 'string' ? name : typeof source === 'string' ? source : '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(rest)) {
    if (v === null || v === undefined) continue;
    if (isRecord(v)) {
      const inner = Object.entries(v).filter(([, x]) => x !== 0 && x !== null && x !== undefined);
      if (inner.length) parts.push(`${k}(${inner.map(([ik, x]) => `${ik}=${scalar(x)}`).join(' ')})`);
    } else parts.push(`${k}=${scalar(v)}`);
  }
  return `${head ? `${head}  ` : ''}${parts.join(' ')}`;
}

export function prettyDestination(fd: number): { write(line: string): void } {
  return {
    write(line: string) {
      endOpenLine(fd);
      // Values decoded from JSON may hold a document's escape sequences: shown, never sent raw.
      for (const l of line.split('\n')) if (l) writeSync(fd, visible(formatLine(l)));
    },
  };
}

/** pino's JSON lines for a terminal that may show a progress bar: the bar's line is ended first. */
export function terminalJsonDestination(fd: number): { write(line: string): void } {
  return {
    write(line: string) {
      endOpenLine(fd);
      writeSync(fd, visible(line)); // JSON leaves C1 controls raw
    },
  };
}
