import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import type { Expansion } from '../core/profile.ts';
import { errorMessage } from '../core/errors.ts';
import { describeIoError } from '../core/io-errors.ts';
import { configuredFilters, contractArgs, contractFields, filterFields, filtersOf, toolFields } from '../search/filter-fields.ts';
import { runTool, toolsOf } from '../search/tools.ts';
import { resultJson } from '../search/present.ts';
import { MAX_K, parseSearchRequest } from '../search/request.ts';
import type { Searcher, SearchResult } from '../search/search.ts';
import { serverInfo, type FrontHandoff } from './front.ts';
import type { Answerer } from '../answer/answer.ts';
import { collectAnswer } from '../answer/collect.ts';
import { MAX_PASSAGES, parseChatRequest } from '../answer/request.ts';
import type { SourceRequest } from '../config/source-entry.ts';
import { builtinSourceKinds } from '../sources/registry.ts';

/** A tool's answer: one text part holding the value as JSON. */
const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });

const text = (results: SearchResult[], expansions?: Expansion[]) => json({ results: results.map(resultJson), ...(expansions ? { expansions } : {}) });

/** An error the client sees as a tool error (isError), not a protocol failure. */
const toolError = (err: unknown) => ({ isError: true, content: [{ type: 'text' as const, text: describeIoError(err) ?? errorMessage(err) }] });

/**
 * An MCP server exposing `search` and `related` over one Searcher — or over the reason there is
 * none (a bad config, no index): the session still starts and every tool call answers with that
 * error, so the client shows it instead of "connection closed". Given an answerer, `ask` too.
 */
export function createMcpServer(source: Searcher | Error, version?: string, answerer?: Answerer | null, sources?: SourceTools): McpServer {
  const info = serverInfo(); // package.json, read once
  const server = new McpServer({ name: info.name, version: version ?? info.version });
  const searcher = (): Searcher => {
    // After a source tool changed the config, the searcher opened on the new one.
    const now = sources?.searcher?.() ?? source;
    if (now instanceof Error) throw now;
    return now;
  };
  const searchTools = registerSearchTools(server, source, searcher);
  if (answerer) {
    server.registerTool(
      'ask',
      {
        description:
          'Answer a question from the index with the configured chat model: it searches when the question is about the indexed sources and cites them as [1], [2]. Returns JSON {answer, sources:[{id,title,url,transcript,score,metadata}]}.',
        inputSchema: {
          question: z.string().min(1).describe('the question, in any language'),
          source: z.string().optional().describe('only this source'),
          k: z.number().int().min(1).max(MAX_PASSAGES).optional().describe('passages given to the model'),
        },
      },
      async ({ question, source, k }) => {
        try {
          const req = parseChatRequest({ messages: [{ role: 'user', parts: [{ type: 'text', text: question }] }], source, k }, answerer.chat);
          const a = await collectAnswer(answerer.stream(req));
          if (a.error) return toolError(new Error(`the answer failed: ${a.error}`));
          return json({ answer: a.text, sources: a.sources });
        } catch (err) {
          return toolError(err);
        }
      },
    );
  }
  if (sources) registerSourceTools(server, sources, () => searchTools.refresh(sources.searcher?.() ?? source));
  return server;
}

/**
 * search, related and the profiles' tools (codeSearch, docSearch, when a source of theirs is
 * configured), their schemas made from a searcher's config: the known sources and the profiles'
 * filters. `refresh` makes them again from another (after a source tool changed the config) and
 * tells the client once (notifications/tools/list_changed: the server declares tools.listChanged).
 */
function registerSearchTools(server: McpServer, first: Searcher | Error, searcher: () => Searcher): { refresh(now: Searcher | Error): void } {
  let specs = first instanceof Error ? [] : configuredFilters(first.scope);
  const searchFields = (s: Searcher | Error) => {
    const names = s instanceof Error ? [] : s.scope.sources.map((x) => x.name);
    return {
      ...contractFields(),
      source: z.string().optional().describe(`only this source${names.length ? ` (${names.join(', ')})` : ''}`),
      ...filterFields(specs),
    };
  };
  const search = server.registerTool(
    'search',
    {
      description:
        'Search the ragsync index (hybrid keyword + vector). Returns JSON {results:[{source,path,title,heading,content,score,metadata,…}]}.',
      inputSchema: searchFields(first),
    },
    async (args) => {
      try {
        const { source, sources } = args as { source?: string; sources?: string[] };
        const r = await searcher().run(
          parseSearchRequest(
            { ...contractArgs(args), sources: source ? [source, ...(sources ?? [])] : sources, filters: filtersOf(specs, args) },
            'body',
          ),
        );
        return text(r.results, r.expansions);
      } catch (err) {
        return toolError(err);
      }
    },
  );
  server.registerTool(
    'related',
    {
      description: 'Documents most similar to a given document (by source + path, or a chunk id), itself excluded.',
      inputSchema: {
        path: z.string().optional().describe('document path within its source (source:path, as search results name it, works too)'),
        id: z.string().optional().describe('a chunk id from a search result'),
        source: z.string().optional(),
        k: z.number().int().min(1).max(MAX_K).optional(),
      },
    },
    async ({ path, id, source, k }) => {
      try {
        return text(await searcher().related({ path, id, source }, { k }));
      } catch (err) {
        return toolError(err);
      }
    },
  );
  const profileTools = new Map<string, RegisteredTool>();
  const registerProfileTools = (s: Searcher | Error) => {
    const wanted = s instanceof Error ? [] : toolsOf(s);
    for (const [name, tool] of profileTools) {
      if (wanted.some((w) => w.name === name)) continue;
      tool.remove();
      profileTools.delete(name);
    }
    for (const spec of wanted) {
      if (profileTools.has(spec.name)) continue;
      const tool = server.registerTool(spec.name, { description: spec.description, inputSchema: toolFields(spec.params) }, async (args: Record<string, unknown>) => {
        try {
          return json({ results: await runTool(searcher(), spec, args) });
        } catch (err) {
          return toolError(err);
        }
      });
      profileTools.set(spec.name, tool);
    }
  };
  registerProfileTools(first);
  return {
    refresh(now) {
      heldNotifications(server, () => {
        specs = now instanceof Error ? [] : configuredFilters(now.scope);
        search.update({ paramsSchema: searchFields(now) });
        registerProfileTools(now);
      });
    },
  };
}

/** Makes changes to the tools with the list_changed each would send held back, then sends one. */
function heldNotifications(server: McpServer, change: () => void): void {
  server.sendToolListChanged = () => {};
  try {
    change();
  } finally {
    Reflect.deleteProperty(server, 'sendToolListChanged');
  }
  server.sendToolListChanged();
}

/**
 * What the source tools do: the functions behind `ragsync source add|list|remove`, bound to the
 * config file by the command that starts the server (cli/source-tools.ts).
 */
export interface SourceTools {
  add(req: SourceRequest & { index?: boolean }): Promise<unknown>;
  list(): Promise<unknown>;
  remove(name: string): Promise<unknown>;
  /** The searcher over the config as it is now (after an add or remove), when it changed. */
  searcher?(): Searcher | Error | undefined;
}

/** sourceAdd, sourceList, sourceRemove: for agents that manage their own knowledge. `changed`: after an add or a remove. */
function registerSourceTools(server: McpServer, tools: SourceTools, changed: () => void): void {
  const globs = z.array(z.string().min(1)).optional();
  server.registerTool(
    'sourceAdd',
    {
      description:
        'Add a source to the ragsync config (the file edited in place, comments kept; validated first): a local folder, a git repository URL or a website URL. Set index to index it at once. Returns JSON {file, source, index?}.',
      inputSchema: {
        location: z.string().min(1).describe('a folder (absolute, or relative to the server\'s working directory), a git URL (https://host/owner/repo, …/x.git, git@host:…) or an http(s) site URL'),
        name: z.string().min(1).optional().describe('the source name (default: derived from the location, made unique)'),
        kind: z.enum(builtinSourceKinds.names as [string, ...string[]]).optional().describe(`default: inferred from the location; ${builtinSourceKinds.kinds.map((k) => `${k.name}: ${k.description}`).join('; ')}`),
        include: globs.describe('files (web: URL patterns) to index'),
        exclude: globs.describe('files (web: URL patterns) to leave out'),
        chunker: z.string().min(1).optional().describe('markdown, code, classics, bookmarks (default: markdown)'),
        branch: z.string().min(1).optional().describe("git: the branch (default: the repository's HEAD branch)"),
        index: z.boolean().optional().describe('index the source now (default: false)'),
      },
    },
    async (args) => {
      try {
        const added = await tools.add(args);
        changed();
        return json(added);
      } catch (err) {
        return toolError(err);
      }
    },
  );
  server.registerTool(
    'sourceList',
    {
      description: 'The sources of the ragsync config and index: kind, location, indexed commit or crawl time, documents, chunks, last run. Returns JSON {sources:[…]}.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => {
      try {
        return json(await tools.list());
      } catch (err) {
        return toolError(err);
      }
    },
  );
  server.registerTool(
    'sourceRemove',
    {
      description:
        "Remove a source: its documents, chunks and then-unused vectors from the index, its entry from the config file, and ragsync's own checkout of it (never the user's files). Returns JSON {name, documents, chunks, vectors, …}.",
      inputSchema: { name: z.string().min(1).describe('the source name (sourceList lists them)') },
      annotations: { destructiveHint: true },
    },
    async ({ name }) => {
      try {
        const removed = await tools.remove(name);
        changed();
        return json(removed);
      } catch (err) {
        return toolError(err);
      }
    },
  );
}

/**
 * Serves MCP on stdin/stdout until the client disconnects. From the early front (front.ts): its
 * stdin replays the input from the start, and the answer to the `initialize` it already gave is
 * not written again.
 */
export async function serveStdio(
  searcher: Searcher | Error,
  io: Partial<FrontHandoff> = {},
  answerer: Answerer | null = null,
  sources?: SourceTools,
): Promise<void> {
  const server = createMcpServer(searcher, undefined, answerer, sources);
  const stdin = io.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin);
  // Input that ends (a client closing its end, or a script piping requests in) still gets its
  // answers: the server closes once every request read has been answered.
  let open = 0;
  let ended = false;
  let done = () => {};
  const closed = new Promise<void>((resolve) => {
    done = resolve;
    transport.onclose = () => resolve();
    stdin.once('end', () => {
      ended = true;
      if (open <= 0) resolve();
    });
  });
  const send = transport.send.bind(transport);
  let early = io.answered !== undefined;
  transport.send = async (message) => {
    const answer = 'id' in message && ('result' in message || 'error' in message);
    if (answer) open--;
    try {
      // The front answered this initialize already (front.ts).
      if (answer && early && message.id === io.answered) {
        early = false;
        if ('error' in message) process.stderr.write(`ragsync mcp: initialize, answered early, failed later: ${message.error.message}\n`);
        return;
      }
      return await send(message);
    } finally {
      if (answer && ended && open <= 0) done();
    }
  };
  // A line that is not JSON-RPC is dropped; say so on stderr (stdout is the protocol's) and go on.
  transport.onerror = (err) => {
    const malformed = err instanceof SyntaxError || err.name === 'ZodError';
    const what = errorMessage(err).replace(/\s+/g, ' ').slice(0, 200);
    process.stderr.write(`ragsync mcp: ${malformed ? `ignored a malformed message: ${what}` : what}\n`);
  };
  // Requests are counted as they arrive: connect keeps a handler already set and calls it before
  // its own, from the first message on (the front's replay flows as soon as the transport starts).
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) open++;
  };
  await server.connect(transport);
  await closed;
  await server.close();
}