import type { ServerResponse } from 'node:http';
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  generateObject,
  pipeUIMessageStreamToResponse,
  streamText,
  type LanguageModel,
  type UIMessage,
  type UIMessageChunk,
  zodSchema,
} from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { CHAT_PRESETS, resolveCall, type ResolvedCall } from '../config/model-presets.ts';
import type { ChatConfig } from '../config/schema.ts';
import { selectSources } from '../config/select.ts';
import { errorMessage, EXIT, RagsyncError } from '../core/errors.ts';
import { redactSecrets } from '../core/redact.ts';
import { RemoteCall, type RemoteCallDeps } from '../core/remote/call.ts';
import { toChunkFilter } from '../search/filters.ts';
import { MAX_QUERY_CHARS, parseSearchRequest } from '../search/request.ts';
import type { Searcher, SearchResult } from '../search/search.ts';
import { answerStyle, generalSystem, groundedSystem, numberedPassages, rewritePrompt, type AnswerStyle, type Turn } from './prompts.ts';
import { parseChatRequest, type ChatRequest } from './request.ts';
import { toSourceItems, type SourceItem } from './sources.ts';

/** The UI message an answer streams: text, plus a `data-sources` part with the passages cited. */
export type AnswerMessage = UIMessage<unknown, { sources: SourceItem[] }>;
export type AnswerChunk = UIMessageChunk<unknown, { sources: SourceItem[] }>;

/** What the rewrite step decides. */
export interface Route {
  isRelevant: boolean;
  query: string;
  /** Set when the step failed and the user's own words are searched instead. */
  fallback?: string;
}

// Wrapped once: the SDK converts a bare zod schema to JSON Schema again on every call.
const routeSchema = zodSchema(z.object({ isRelevant: z.boolean(), query: z.string() }));

/** Replies are text: a few megabytes is a broken peer. */
const MAX_CHAT_REPLY_BYTES = 8 * 2 ** 20;
/** How long the sources' indexed commits are reused between questions. */
const COMMITS_TTL_MS = 5000;

export interface AnswererDeps extends RemoteCallDeps {
  log?: (line: string) => void;
}

/** A chat block with its preset filled in. */
export function chatSettings(c: ChatConfig): ResolvedCall {
  return resolveCall(c.provider, CHAT_PRESETS[c.provider], c);
}

/**
 * One line, no credentials: what a client or a log is told of a failure. The AI SDK wraps an
 * error of ours met while reading a reply ("Failed to process successful response"); the line is
 * ours, found down the cause chain, naming the model and the deadline or timeout that passed.
 */
export function describeFailure(err: unknown): string {
  return redactSecrets(errorMessage(ownCause(err))).replace(/\s+/g, ' ').trim().slice(0, 500);
}

function ownCause(err: unknown): unknown {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) if (e instanceof RagsyncError) return e;
  return err;
}

/**
 * Answers questions over one Searcher: rewrite & classify the last message, retrieve and rerank
 * when it is about the library, and stream the model's answer after the sources it may cite.
 * Every way in (POST /api/chat, `ragsync ask`, the MCP tool) goes through `stream`.
 */
export class Answerer {
  readonly call: RemoteCall;
  readonly settings: ResolvedCall;
  private readonly model: LanguageModel;
  private readonly log: (line: string) => void;
  private commits: { at: number; map: Map<string, string | null> } | null = null;

  constructor(
    readonly searcher: Searcher,
    readonly chat: ChatConfig,
    deps: AnswererDeps = {},
  ) {
    this.settings = chatSettings(chat);
    this.log = deps.log ?? (() => {});
    this.call = new RemoteCall({ ...this.settings, block: 'chat', url: this.settings.baseUrl, maxReplyBytes: MAX_CHAT_REPLY_BYTES }, { ...deps, log: this.log });
    // The key goes on through RemoteCall.fetch, so the SDK never holds it (nor can echo it).
    const provider = createOpenAICompatible({ name: this.settings.provider, baseURL: this.settings.baseUrl, fetch: this.call.fetch });
    this.model = provider.chatModel(this.settings.model);
    quietSdkWarnings(this.log);
  }

  /** Refuses, before anything streams, a request naming an unknown source or filter. */
  check(req: ChatRequest): void {
    if (req.sources?.length) selectSources(this.searcher.scope, req.sources);
    toChunkFilter({ filters: parseSearchRequest({ query: 'x', filters: req.filters }).filters, includeBroken: false }, this.searcher.filterSpecs());
    // A configuration error (the key's variable unset) is the operator's, said before the stream.
    this.call.apiKey();
  }

  /** The answer as a UI message stream: data-sources first (always), source parts, then the text. */
  stream(req: ChatRequest, signal?: AbortSignal): ReadableStream<AnswerChunk> {
    this.check(req);
    return createUIMessageStream<AnswerMessage>({
      execute: async ({ writer }) => {
        writer.write({ type: 'start' });
        // Read while the model rewrites (it is cached, but a refresh costs a query of the run log).
        const commits = this.indexedCommits();
        const style = answerStyle(this.searcher.scope, req.sources, this.chat);
        const route = await this.route(req.turns, style, signal);
        let results: SearchResult[] = [];
        let searchFailed: string | null = null;
        if (route.isRelevant) {
          try {
            results = await this.retrieve(route.query, req);
          } catch (err) {
            if (signal?.aborted) throw err;
            searchFailed = describeFailure(err);
            this.log(`chat: search failed: ${searchFailed}`);
          }
        }
        const items = toSourceItems(results, { sources: this.searcher.scope.sources, commits: await commits });
        writer.write({ type: 'data-sources', data: items });
        items.forEach((s, i) => {
          const sourceId = `${i + 1}`;
          if (/^https?:\/\//.test(s.url)) writer.write({ type: 'source-url', sourceId, url: s.url, title: s.title });
          else writer.write({ type: 'source-document', sourceId, mediaType: 'text/markdown', title: s.title, filename: String(s.metadata.path ?? s.url) });
        });
        if (searchFailed !== null) {
          const id = 'search-failed';
          writer.write({ type: 'text-start', id });
          writer.write({ type: 'text-delta', id, delta: `The library could not be searched: ${searchFailed}` });
          writer.write({ type: 'text-end', id });
          writer.write({ type: 'finish' });
          return;
        }
        const system = results.length ? groundedSystem(style, numberedPassages(results, items.map((s) => s.title))) : generalSystem(style);
        const answer = streamText({
          model: this.model,
          system,
          messages: await convertToModelMessages(req.messages.filter((m) => m.role !== 'system') as AnswerMessage[]),
          abortSignal: signal,
          // RemoteCall retries; the SDK's own would multiply them.
          maxRetries: 0,
          ...(this.chat.temperature !== undefined ? { temperature: this.chat.temperature } : {}),
          ...(this.chat.maxOutputTokens !== undefined ? { maxOutputTokens: this.chat.maxOutputTokens } : {}),
          // The SDK's default prints the whole error with its stack; the stream's onError logs one line.
          onError: () => {},
        });
        writer.merge(answer.toUIMessageStream({ sendStart: false, onError: (err) => this.failed('answer', err) }));
      },
      onError: (err) => this.failed('chat', err),
    });
  }

  /**
   * POST /api/chat: validates the body (a bad one throws a usage error before anything is sent:
   * the server answers 400), then streams the answer; the client going away aborts the model's
   * and the rewrite's requests.
   */
  async serve(body: unknown, res: ServerResponse): Promise<void> {
    const req = parseChatRequest(body, this.chat);
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort(new Error('client disconnected'));
    });
    const stream = this.stream(req, gone.signal);
    await pipeUIMessageStreamToResponse({ response: res, stream });
  }

  /**
   * The same for web-standard servers (Next.js route handlers, Hono, Bun, Deno): a bad body is a
   * 400 with a JSON error, a good one the UI message stream; the request's signal aborts upstream.
   */
  async respond(request: Request): Promise<Response> {
    try {
      const body: unknown = await request.json().catch(() => {
        throw new RagsyncError('malformed JSON body', EXIT.usage);
      });
      return createUIMessageStreamResponse({ stream: this.stream(parseChatRequest(body, this.chat), request.signal) });
    } catch (err) {
      if (err instanceof RagsyncError && err.exitCode === EXIT.usage) return Response.json({ error: err.message }, { status: 400 });
      throw err;
    }
  }

  private failed(stage: string, err: unknown): string {
    const line = describeFailure(err);
    this.log(`${stage} failed: ${line}`);
    return line;
  }

  /**
   * One non-streaming call decides whether the last message needs the library and rewrites it
   * into a standalone query. A failure or an answer without a query searches the user's own words.
   */
  async route(turns: Turn[], style: AnswerStyle, signal?: AbortSignal): Promise<Route> {
    const own = turns[turns.length - 1]!.text.trim();
    try {
      const { system, prompt } = rewritePrompt(style, turns);
      const { object } = await generateObject({ model: this.model, schema: routeSchema, system, prompt, abortSignal: signal, maxRetries: 0, temperature: 0 });
      const query = object.query.trim();
      if (object.isRelevant && !query) return { isRelevant: true, query: own, fallback: 'empty query' };
      return { isRelevant: object.isRelevant, query: query || own };
    } catch (err) {
      if (signal?.aborted) throw err;
      const why = describeFailure(err);
      this.log(`chat: rewrite failed, searching the message as written: ${why}`);
      return { isRelevant: true, query: own, fallback: why };
    }
  }

  /** Hybrid search through the search contract, reranked by the searcher's reranker, top k kept. */
  private async retrieve(query: string, req: ChatRequest): Promise<SearchResult[]> {
    const q = Array.from(query).slice(0, MAX_QUERY_CHARS).join('');
    // More candidates than passages only when a reranker is there to choose among them.
    const k = this.searcher.reranker ? Math.max(this.chat.candidates, req.k) : req.k;
    const r = await this.searcher.run(parseSearchRequest({ query: q, k, mode: 'hybrid', sources: req.sources, filters: req.filters, rerank: true }));
    if (r.rerankError) this.log(`chat: rerank failed, retrieval order kept: ${r.rerankError}`);
    return r.results.slice(0, req.k);
  }

  /** Each source's indexed commit (for permalinks), read at most every few seconds. */
  private async indexedCommits(): Promise<Map<string, string | null>> {
    if (this.commits && Date.now() - this.commits.at < COMMITS_TTL_MS) return this.commits.map;
    try {
      const { sources } = await this.searcher.store.status({ runs: 0 });
      this.commits = { at: Date.now(), map: new Map(sources.map((s) => [s.name, s.commit])) };
    } catch (err) {
      // Links then go to paths; the search's own failure, if any, is said in the stream.
      this.log(`chat: indexed commits not read: ${describeFailure(err)}`);
      return new Map();
    }
    return this.commits.map;
  }

  async close(): Promise<void> {
    await this.call.close();
  }
}

/**
 * The AI SDK prints its warnings with console (stdout included, where `ask --json` writes). Unless
 * the embedding application chose otherwise, they go to our log instead, one line each; the one
 * every OpenAI-compatible provider gives for the rewrite step (a JSON schema it cannot send: the
 * prompt states the shape instead) is expected and dropped.
 */
function quietSdkWarnings(log: (line: string) => void): void {
  const g = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
  g.AI_SDK_LOG_WARNINGS ??= ({ warnings }: { warnings: { type: string; feature?: string }[] }) => {
    for (const w of warnings) if (!(w.type === 'unsupported' && w.feature === 'responseFormat')) log(`AI SDK warning: ${JSON.stringify(w).slice(0, 300)}`);
  };
}

/** Thrown by the ways in when no chat block is configured. */
export function noChat(where: string): RagsyncError {
  return new RagsyncError(`${where}: no "chat" block in the config: add one (e.g. {"chat": {"provider": "dashscope"}}; see docs/answers.md)`, EXIT.usage);
}
