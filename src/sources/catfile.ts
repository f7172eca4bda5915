import { spawn } from 'node:child_process';

/**
 * Reads many blobs through one `git cat-file --batch` process instead of one process per file.
 * Output format per object: "<sha> <type> <size>\n<bytes>\n". Spawned directly, not through
 * simple-git: it streams binary objects through stdin/stdout while they are read, and simple-git
 * buffers a command's whole output as text before returning it.
 */
export async function* readBlobs(
  gitDir: string,
  items: { path: string; sha: string }[],
): AsyncGenerator<{ path: string; bytes: Buffer }> {
  if (!items.length) return;
  const child = spawn('git', ['cat-file', '--batch'], { cwd: gitDir, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  child.stdin.on('error', () => {}); // reported through the exit code below
  child.stdin.end(items.map((i) => i.sha).join('\n') + '\n');

  let buf: Buffer = Buffer.alloc(0);
  let i = 0;
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      buf = buf.length ? Buffer.concat([buf, data]) : data;
      for (;;) {
        const nl = buf.indexOf(10);
        if (nl < 0) break;
        const header = buf.subarray(0, nl).toString();
        const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
        if (!m) throw new Error(`git cat-file: unexpected output "${header}"`);
        const size = Number(m[3]);
        if (buf.length < nl + 1 + size + 1) break;
        const bytes = Buffer.from(buf.subarray(nl + 1, nl + 1 + size));
        buf = buf.subarray(nl + 1 + size + 1);
        yield { path: items[i++]!.path, bytes };
      }
    }
  } finally {
    if (child.exitCode === null) child.kill();
  }
  const code = await exited;
  if (i < items.length) throw new Error(`git cat-file ended early (${code}): ${stderr.trim()}`);
}
