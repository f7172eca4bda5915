/**
 * POST /api/chat on loopback against a model of fixed latency: time to the `data-sources` part and
 * to the first text delta, and the pipeline's own share of the latter (everything but the model's
 * time: parsing, the rewrite call's handling, hybrid search, rerank-free top N, permalinks, the
 * prompt, the stream). The baseline, measured in the same run on the same server, is POST /search
 * for the same query (what the pipeline's search costs by itself). Beside the wall times, the CPU
 * this process (the server and the bench's client; the model runs in a child process) spent per
 * conversation and per search: on a loaded machine those hold where wall times do not.
 *
 *   npx tsx bench/answer.bench.ts -c CONFIG [--latency 100] [--rounds 1] FILE.jsonl [FILE.jsonl ...]
 *
 * The model (a child process serving 127.0.0.1) answers the rewrite after LATENCY ms and sends its
 * first token LATENCY ms after the answer request; it records how long it held each request (GET
 * /held reads and resets the sum), and that time is subtracted from the time to the first text delta.
 * `--rewrite-changes`: the rewrite returns a query other than the message (the search then cannot
 * reuse anything started on the message's own words).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig } from '../src/builtin.ts';
import { Answerer } from '../src/answer/answer.ts';
import { chatSchema } from '../src/config/schema.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { Searcher } from '../src/search/search.ts';
import { createHttpServer, listen } from '../src/server/http.ts';
import { takeOption } from './serve-process.ts';
import { openSearcher } from '../src/engine/library.ts';

const TARGET_MS = 25;
const args = process.argv.slice(2);
const configFile = resolve(takeOption(args, '-c', ''));
const latency = Number(takeOption(args, '--latency', '100'));
const rounds = Number(takeOption(args, '--rounds', '1'));
const changes = args.includes('--rewrite-changes');
if (changes) args.splice(args.indexOf('--rewrite-changes'), 1);
if (!configFile || !args.length) throw new Error('usage: answer.bench.ts -c CONFIG [--latency MS] [--rounds N] [--rewrite-changes] FILE.jsonl ...');
const cases = args.flatMap((f) => readEvalFile(f));

// The model, in a process of its own so that its work is not counted as the pipeline's.
const MODEL = `
const { createServer } = require('node:http');
const latency = ${latency}, changes = ${changes};
let held = 0;
const server = createServer((req, res) => {
  if (req.url === '/held') { const h = held; held = 0; return res.end(String(h)); }
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const j = JSON.parse(body);
    const started = performance.now();
    setTimeout(() => {
      held += performance.now() - started;
      if (!j.stream) {
        const last = [...j.messages].reverse().find((m) => m.role === 'user');
        const own = /Conversation:\\n[\\s\\S]*?user: (.*)\\n/.exec(last.content)?.[1] ?? 'x';
        const content = JSON.stringify({ isRelevant: true, query: changes ? own + ' 之义' : own });
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, finish = null) =>
        'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) + '\\n\\n';
      res.write(chunk({ role: 'assistant', content: 'answer ' }));
      res.write(chunk({ content: '[1]' }));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\\n\\n');
    }, latency);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write('http://127.0.0.1:' + server.address().port + '\\n'));
`;
const model = spawn(process.execPath, ['-e', MODEL], { stdio: ['ignore', 'pipe', 'inherit'] });
// However the bench ends, the model goes with it.
process.on('exit', () => model.kill());
const modelUrl = await new Promise<string>((ok, fail) => {
  model.stdout.once('data', (d) => ok(String(d).trim()));
  model.once('exit', (code) => fail(new Error(`the model server exited (${code})`)));
});
const heldMs = async () => Number(await (await fetch(`${modelUrl}/held`)).text());

const cfg = loadConfig(configFile);
const searcher = openSearcher(cfg);
const chatBlock = chatSchema.parse({ provider: 'openai-compatible', baseUrl: modelUrl, model: 'm', maxRetries: 0 });
const answerer = new Answerer(searcher, chatBlock);
const server = createHttpServer(searcher, { chat: answerer });
const base = await listen(server, 0);

/** One conversation: ms to data-sources, to the first text delta, and the model's held time. */
async function converse(query: string, source: string | undefined) {
  await heldMs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${base}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: query }] }], ...(source ? { source } : {}) }),
  });
  let sources = NaN;
  let text = NaN;
  let n = -1;
  let buf = '';
  const decoder = new TextDecoder();
  for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(part, { stream: true });
    for (let cut; (cut = buf.indexOf('\n\n')) >= 0; ) {
      const line = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      if (!line.startsWith('data: {')) continue;
      const c = JSON.parse(line.slice(6)) as { type: string; data?: unknown[] };
      if (c.type === 'data-sources' && Number.isNaN(sources)) {
        sources = performance.now() - t0;
        n = c.data!.length;
      }
      if (c.type === 'text-delta' && Number.isNaN(text)) text = performance.now() - t0;
    }
  }
  const c = process.cpuUsage(cpu0);
  if (Number.isNaN(sources) || Number.isNaN(text) || n <= 0) throw new Error(`no sources or text for ${JSON.stringify(query)}`);
  const held = await heldMs();
  return { sources, text, own: text - held, cpu: (c.user + c.system) / 1000 };
}

async function searchOnce(query: string, source: string | undefined): Promise<{ ms: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${base}/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, k: 6, ...(source ? { sources: [source] } : {}) }) });
  await res.json();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(cpu0);
  return { ms, cpu: (c.user + c.system) / 1000 };
}

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
// Warm-up: every query once each way (vectors loaded, terms cached as a long-lived server has them).
for (const c of cases) {
  await searchOnce(c.query, c.source);
  await converse(c.query, c.source);
}
const rows: { search: number; sources: number; text: number; own: number; searchCpu: number; cpu: number }[] = [];
for (let r = 0; r < rounds; r++) {
  for (const c of cases) {
    const search = await searchOnce(c.query, c.source);
    const a = await converse(c.query, c.source);
    rows.push({ search: search.ms, searchCpu: search.cpu, sources: a.sources, text: a.text, own: a.own, cpu: a.cpu });
  }
}
const col = (k: keyof (typeof rows)[0]) => rows.map((x) => x[k]);
const fmt = (xs: number[]) => `${p(xs, 0.5).toFixed(1).padStart(7)} ${p(xs, 0.9).toFixed(1).padStart(7)}`;
const own = p(col('own'), 0.5);
console.log(`${rows.length} conversations over ${cases.length} queries, model latency ${latency} ms per call (rewrite, then first token)${changes ? ', the rewrite changing the query' : ''}; load average ${loadavg()[0]!.toFixed(1)}`);
console.log('                                      p50 ms  p90 ms');
console.log(`POST /search alone (baseline)        ${fmt(col('search'))}`);
console.log(`time to data-sources                 ${fmt(col('sources'))}`);
console.log(`time to first text delta             ${fmt(col('text'))}`);
console.log(`pipeline share (first delta − model) ${fmt(col('own'))}`);
console.log(`CPU per POST /search (baseline)      ${fmt(col('searchCpu'))}`);
console.log(`CPU per conversation                 ${fmt(col('cpu'))}`);
console.log(`pipeline share / search alone, p50: ${(own / p(col('search'), 0.5)).toFixed(2)}×; CPU per conversation / per search, p50: ${(p(col('cpu'), 0.5) / p(col('searchCpu'), 0.5)).toFixed(2)}×`);
console.log(`target: pipeline share p50 ≤ ${TARGET_MS} ms: ${own <= TARGET_MS ? 'MET' : 'NOT MET'} (${own.toFixed(1)} ms)`);
server.closeAllConnections();
server.close();
await answerer.close();
model.kill();
await searcher.close();
