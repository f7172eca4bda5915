// ragsync's page: search, chat and status over the HTTP API of `ragsync serve`. No framework,
// no network beyond the server it came from.
'use strict';

const zh = (navigator.languages || [navigator.language || 'en']).some((l) => /^zh\b/i.test(l));
const T = zh
  ? {
      search: '搜索', chat: '问答', status: '状态', query: '查询', queryPlaceholder: '输入要查找的内容', source: '来源', allSources: '全部来源',
      searchButton: '搜索', message: '消息', messagePlaceholder: '输入问题', send: '发送', sources: '来源', name: '名称', kind: '类型',
      commit: '提交', indexedAt: '索引时间', sourceRun: '最近运行', chunks: '片段', runs: '运行记录', tokenLabel: '访问令牌', tokenSave: '在此标签页使用',
      related: '相关', score: '得分', noResults: '没有结果', results: (n) => `${n} 条结果`, searching: '搜索中…', noRefs: '暂无参考资料',
      you: '你', assistant: '助手', healthy: '健康', unhealthy: '不健康', lastRun: '上次运行', never: '尚未运行',
      chart: (n) => `最近 ${n} 次运行：柱为嵌入文本数，线为耗时`, texts: '嵌入文本', seconds: '秒', failed: '请求失败',
      run: '运行', duration: '耗时（秒）', ago: '前', status_ok: '成功', status_partial: '部分完成', status_failed: '失败',
      status_aborted: '已中止', status_running: '运行中', notIndexed: '尚未索引', reasonLabel: '原因', permalink: '原文', colon: '：',
    }
  : {
      search: 'Search', chat: 'Chat', status: 'Status', query: 'Query', queryPlaceholder: 'What are you looking for?', source: 'Source',
      allSources: 'All sources', searchButton: 'Search', message: 'Message', messagePlaceholder: 'Ask a question', send: 'Send',
      sources: 'Sources', name: 'Name', kind: 'Kind', commit: 'Commit', indexedAt: 'Indexed', sourceRun: 'Last run', chunks: 'Chunks', runs: 'Runs',
      tokenLabel: 'Bearer token', tokenSave: 'Use for this tab', related: 'related', score: 'score', noResults: 'No results',
      results: (n) => `${n} result${n === 1 ? '' : 's'}`, searching: 'Searching…', noRefs: 'no references', you: 'You',
      assistant: 'Assistant', healthy: 'healthy', unhealthy: 'unhealthy', lastRun: 'last run', never: 'never run',
      chart: (n) => `Last ${n} runs: bars are texts embedded, the line is duration`, texts: 'texts embedded', seconds: 's',
      failed: 'Request failed', run: 'run', duration: 'duration (s)', ago: 'ago', status_ok: 'ok', status_partial: 'partial',
      status_failed: 'failed', status_aborted: 'aborted', status_running: 'running', notIndexed: 'not indexed yet',
      reasonLabel: 'reason', permalink: 'source', colon: ': ',
    };
const LOCALE = zh ? 'zh-CN' : undefined;

const $ = (sel) => document.querySelector(sel);
const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
};

function translate() {
  document.documentElement.lang = zh ? 'zh' : 'en';
  for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = T[e.dataset.i18n];
  for (const e of document.querySelectorAll('[data-i18n-placeholder]')) e.placeholder = T[e.dataset.i18nPlaceholder];
}

// The bearer token, asked once when the API wants one, kept for this tab only.
const TOKEN_KEY = 'ragsync-token';
let tokenWaiters = [];
function askToken() {
  $('#token-form').hidden = false;
  $('#token').focus();
  return new Promise((resolve) => tokenWaiters.push(resolve));
}
async function api(path, init = {}) {
  for (;;) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = { ...(init.headers || {}), ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const res = await fetch(path, { ...init, headers });
    if (res.status !== 401) return res;
    sessionStorage.removeItem(TOKEN_KEY);
    await askToken();
  }
}
async function json(path, init) {
  const res = await api(path, init);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `${T.failed} (HTTP ${res.status})`);
  return body;
}

// Search terms to highlight: the query's words, and for Chinese runs each pair of characters.
function terms(q) {
  const out = new Set();
  for (const w of q.split(/[\s,，。、;；:：!?！？"'“”()（）]+/u)) {
    if (!w) continue;
    if (/\p{Script=Han}/u.test(w) && w.length > 2) for (let i = 0; i + 2 <= w.length; i++) out.add(w.slice(i, i + 2));
    else out.add(w);
  }
  return [...out].sort((a, b) => b.length - a.length);
}
function highlighted(text, q) {
  const ts = terms(q).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const frag = document.createDocumentFragment();
  if (!ts.length) return frag.append(text), frag;
  const re = new RegExp(`(${ts.join('|')})`, 'giu');
  text.split(re).forEach((part, i) => frag.append(i % 2 ? el('mark', {}, part) : part));
  return frag;
}
// Snippets as Markdown, built from DOM nodes (never HTML): **bold**, *italic* / _italic_, `code` and
// [links](http…) become elements; anything else, raw HTML included, stays text.
const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*|__[^_\n]+__)|(\*[^*\s][^*\n]*\*|(?<![\p{L}\p{N}])_[^_\s][^_\n]*_(?![\p{L}\p{N}]))|(\[[^\]\n]+\]\((https?:\/\/[^)\s]+)\))/u;
function markdown(text, q) {
  const frag = document.createDocumentFragment();
  const plain = (t) => (q ? highlighted(t, q) : document.createTextNode(t));
  let rest = text;
  for (let m; (m = INLINE.exec(rest)); ) {
    if (m.index) frag.append(plain(rest.slice(0, m.index)));
    const [whole, code, bold, italic, link, href] = m;
    if (code) frag.append(el('code', {}, code.slice(1, -1)));
    else if (bold) frag.append(el('strong', {}, markdown(bold.slice(2, -2), q)));
    else if (italic) frag.append(el('em', {}, markdown(italic.slice(1, -1), q)));
    else if (link) frag.append(el('a', { href, rel: 'noopener' }, markdown(link.slice(1, link.indexOf('](')), q)));
    rest = rest.slice(m.index + whole.length);
  }
  if (rest) frag.append(plain(rest));
  return frag;
}
const snippet = (s, n = 240) => (Array.from(s).length > n ? Array.from(s).slice(0, n).join('') + '…' : s).replace(/\s+/g, ' ');

function resultItem(r, q) {
  const link = typeof r.url === 'string' && /^https?:/.test(r.url) ? r.url : null;
  const title = r.title || r.path;
  const relatedList = el('ol', { class: 'related' });
  const relatedLink = el('a', { href: `#related-${r.id}` }, T.related);
  relatedLink.addEventListener('click', async (ev) => {
    ev.preventDefault();
    relatedList.replaceChildren();
    try {
      const { results } = await json(`/related?${new URLSearchParams({ id: r.id, source: r.source, k: '5' })}`);
      for (const x of results) relatedList.append(el('li', {}, x.title || x.path, ' ', el('span', { class: 'meta' }, x.path)));
    } catch (err) {
      relatedList.append(el('li', { class: 'error' }, err.message));
    }
  });
  return el(
    'li',
    {},
    el('h3', {}, link ? el('a', { href: link, rel: 'noopener' }, title) : title),
    el('div', { class: 'meta' }, [r.source, r.heading].filter(Boolean).join(' › '), ` · ${T.score} ${Number(r.score).toFixed(4)} · `, relatedLink),
    el('p', { class: 'snippet' }, markdown(snippet(r.content || ''), q)),
    relatedList,
  );
}

async function runSearch(q, source) {
  const status = $('#search-status');
  status.textContent = T.searching;
  $('#results').replaceChildren();
  try {
    const body = JSON.stringify({ query: q, k: 10, ...(source ? { sources: [source] } : {}) });
    const { results } = await json('/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    status.textContent = results.length ? T.results(results.length) : T.noResults;
    $('#results').replaceChildren(...results.map((r) => resultItem(r, q)));
  } catch (err) {
    status.textContent = err.message;
    status.className = 'error';
  }
}

// Chat: POST /api/chat with the conversation as UI messages; the reply is the AI SDK's UI message
// stream (server-sent events of JSON chunks): data-sources first, then text deltas.
const conversation = [];
let turns = 0;
/** The card of passage n in a turn: what its citation [n] links to. */
const cardId = (turn, n) => `t${turn}-src${n}`;
function sourceCards(sources, turn) {
  if (!sources.length) return el('p', { class: 'none' }, T.noRefs);
  return el(
    'ol',
    { class: 'cards', 'aria-label': T.sources },
    sources.map((s, i) => {
      const web = /^https?:/.test(s.url);
      const meta = s.metadata || {};
      const where = [meta.source, meta.path].filter(Boolean).join(':');
      return el(
        'li',
        { class: 'card', id: cardId(turn, i + 1) },
        el('span', { class: 'n' }, `[${i + 1}]`),
        el('span', { class: 'title' }, s.title),
        el('div', { class: 'meta' }, web ? el('a', { href: s.url, rel: 'noopener' }, T.permalink) : null, web && where ? ' · ' : '', where),
        el('p', { class: 'snippet' }, markdown(snippet(s.transcript || '', 140))),
      );
    }),
  );
}
/** The answer's text with each [n] a link to its card. */
function citedAnswer(text, turn, count) {
  const frag = document.createDocumentFragment();
  text.split(/(\[\d{1,2}\])/).forEach((part, i) => {
    const n = i % 2 ? Number(part.slice(1, -1)) : 0;
    frag.append(n >= 1 && n <= count ? el('a', { href: `#${cardId(turn, n)}`, class: 'cite' }, part) : part);
  });
  return frag;
}
async function sendChat(text, source) {
  conversation.push({ id: `u${conversation.length}`, role: 'user', parts: [{ type: 'text', text }] });
  const answer = el('div', { class: 'answer' });
  const cards = el('div', { class: 'sources' });
  const n = ++turns;
  let count = 0;
  // The answer first, as it streams; the passages it cites below it.
  const turn = el('div', { class: 'turn assistant-turn' }, el('div', { class: 'who' }, T.assistant), answer, cards);
  $('#conversation').append(el('div', { class: 'turn' }, el('div', { class: 'who' }, T.you), el('div', {}, text)), turn);
  let reply = '';
  try {
    const res = await api('/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'page', messages: conversation, ...(source ? { source } : {}) }),
    });
    if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || `${T.failed} (HTTP ${res.status})`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += value;
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const event = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = event.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        if (!data || data === '[DONE]') continue;
        const chunk = JSON.parse(data);
        if (chunk.type === 'data-sources') {
          count = chunk.data.length;
          cards.replaceChildren(sourceCards(chunk.data, n));
          answer.replaceChildren(citedAnswer(reply, n, count));
        } else if (chunk.type === 'text-delta') answer.replaceChildren(citedAnswer((reply += chunk.delta), n, count));
        else if (chunk.type === 'error') answer.append(el('p', { class: 'error' }, chunk.errorText));
      }
    }
  } catch (err) {
    answer.append(el('p', { class: 'error' }, err.message));
  }
  conversation.push({ id: `a${conversation.length}`, role: 'assistant', parts: [{ type: 'text', text: reply }] });
}

// Status: sources with their indexed commit, the recent runs as a chart, health in words.
function commitLink(s) {
  if (!s.commit) return '—';
  const short = s.commit.slice(0, 8);
  const m = /^(?:https?:\/\/|ssh:\/\/)?(?:[^@/]+@)?([^/:]+)[/:](.+?)(?:\.git)?\/?$/.exec(s.url || '');
  return m && m[2].includes('/') ? el('a', { href: `https://${m[1]}/${m[2]}/commit/${s.commit}`, rel: 'noopener' }, short) : el('code', {}, short);
}
// Times in the reader's zone and language, with their age ("3 minutes ago", "3 分钟前").
const rtf = new Intl.RelativeTimeFormat(LOCALE, { numeric: 'auto' });
function age(iso) {
  const s = (Date.parse(iso) - Date.now()) / 1000;
  for (const [unit, n] of [['day', 86400], ['hour', 3600], ['minute', 60]]) if (Math.abs(s) >= n) return rtf.format(Math.round(s / n), unit);
  return rtf.format(Math.round(s), 'second');
}
function when(iso) {
  if (!iso) return '—';
  const local = new Date(iso).toLocaleString(LOCALE, { dateStyle: 'short', timeStyle: 'short' });
  return el('time', { dateTime: iso, title: iso }, local, el('span', { class: 'age' }, ` · ${age(iso)}`));
}
const statusWord = (s) => T[`status_${s}`] || s;

function runsChart(runs) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = (tag, attrs = {}, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const list = [...runs].reverse();
  // Room for both vertical axes (texts on the left, seconds on the right) and the run numbers below.
  const W = 720, H = 240, L = 64, R = 64, Tp = 16, B = 44, n = Math.max(list.length, 1), bw = (W - L - R) / n;
  const secs = list.map((r) => (r.finishedAt ? (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000 : 0));
  const nice = (v) => {
    const p = 10 ** Math.floor(Math.log10(Math.max(v, 1e-9)));
    return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= v) ?? v;
  };
  const maxT = nice(Math.max(1, ...list.map((r) => r.textsEmbedded)));
  const maxS = nice(Math.max(0.1, ...secs));
  const plotH = H - Tp - B;
  const y = (v, max) => Tp + plotH - (plotH * v) / max;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-labelledby': 'runs-caption' });
  root.append(svg('title', { id: 'runs-caption' }, T.chart(list.length)));
  // Axes with ticks at 0, half and the top, and their titles.
  root.append(svg('line', { class: 'axis', x1: L, y1: Tp, x2: L, y2: Tp + plotH }), svg('line', { class: 'axis', x1: W - R, y1: Tp, x2: W - R, y2: Tp + plotH }));
  root.append(svg('line', { class: 'axis', x1: L, y1: Tp + plotH, x2: W - R, y2: Tp + plotH }));
  for (const f of [0, 0.5, 1]) {
    const yy = Tp + plotH - plotH * f;
    root.append(svg('line', { class: 'grid', x1: L, y1: yy, x2: W - R, y2: yy }));
    root.append(svg('text', { class: 'tick', x: L - 6, y: yy + 4, 'text-anchor': 'end' }, String(Math.round(maxT * f))));
    root.append(svg('text', { class: 'tick', x: W - R + 6, y: yy + 4 }, String(+(maxS * f).toFixed(2))));
  }
  root.append(svg('text', { class: 'axis-title y-left', x: 14, y: Tp + plotH / 2, transform: `rotate(-90 14 ${Tp + plotH / 2})`, 'text-anchor': 'middle' }, T.texts));
  root.append(svg('text', { class: 'axis-title y-right', x: W - 14, y: Tp + plotH / 2, transform: `rotate(90 ${W - 14} ${Tp + plotH / 2})`, 'text-anchor': 'middle' }, T.duration));
  root.append(svg('text', { class: 'axis-title x', x: L + (W - L - R) / 2, y: H - 6, 'text-anchor': 'middle' }, `${T.run} #`));
  const points = [];
  const every = Math.ceil(list.length / 12); // at most a dozen run numbers under the axis
  list.forEach((r, i) => {
    const h = (plotH * r.textsEmbedded) / maxT;
    const x = L + i * bw;
    const bar = svg('rect', { class: `bar ${r.status}`, x: x + bw * 0.15, y: Tp + plotH - h, width: bw * 0.7, height: Math.max(h, 1) });
    bar.append(svg('title', {}, `#${r.id} ${statusWord(r.status)}: ${r.textsEmbedded} ${T.texts}, ${secs[i].toFixed(1)} ${T.seconds}`));
    root.append(bar);
    if (i % every === 0) root.append(svg('text', { class: 'tick', x: x + bw / 2, y: Tp + plotH + 16, 'text-anchor': 'middle' }, String(r.id)));
    points.push([x + bw / 2, y(secs[i], maxS)]);
  });
  if (points.length) root.append(svg('polyline', { class: 'dur', points: points.map((p) => p.join(',')).join(' ') }));
  for (const [cx, cy] of points) root.append(svg('circle', { class: 'dot', cx, cy, r: 3 }));
  const legend = el('p', { class: 'legend' }, el('span', { class: 'key bar-key' }), ` ${T.texts}  `, el('span', { class: 'key dur-key' }), ` ${T.duration}`);
  return el('div', {}, root, el('figcaption', {}, T.chart(list.length)), legend);
}
async function showStatus() {
  try {
    const [s, health] = await Promise.all([json('/status?runs=30'), fetch('/healthz').then((r) => r.json()).catch(() => null)]);
    const lastRunOf = (name) => {
      for (const r of s.runs) {
        const mine = (r.sources || []).find((x) => x.source === name);
        if (mine) return el('span', {}, `${statusWord(mine.status)} · #${r.id} · `, when(r.finishedAt || r.startedAt));
      }
      return '—';
    };
    $('#sources-table tbody').replaceChildren(
      ...s.sources.map((x) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row', class: 'name' }, x.name),
          el('td', { class: 'kind' }, x.kind),
          el('td', { class: 'url' }, x.url || ''),
          el('td', { class: 'commit' }, commitLink(x)),
          el('td', { class: 'time' }, x.indexedAt ? when(x.indexedAt) : T.notIndexed),
          el('td', { class: 'time' }, lastRunOf(x.name)),
          el('td', { class: 'num' }, Number(x.chunks).toLocaleString(LOCALE)),
        ),
      ),
    );
    $('#runs-chart').replaceChildren(runsChart(s.runs));
    const last = s.runs[0];
    const ok = health ? health.ok !== false : true;
    // Said in the page's language; the server's own reason (English) is kept for a hover.
    const line = $('#health');
    line.replaceChildren(
      el('strong', { class: ok ? 'ok' : 'bad' }, ok ? T.healthy : T.unhealthy),
      ` · ${T.lastRun}${T.colon}`,
      last ? el('span', {}, `${statusWord(last.status)} · #${last.id} · `, when(last.finishedAt || last.startedAt)) : T.never,
    );
    if (health && typeof health.reason === 'string') line.title = `${T.reasonLabel}${T.colon}${health.reason}`;
  } catch (err) {
    $('#health').textContent = err.message;
    $('#health').className = 'error';
  }
}

async function fillSources() {
  try {
    const { sources } = await json('/status?runs=1');
    for (const sel of [$('#source'), $('#chat-source')]) for (const s of sources) sel.append(el('option', { value: s.name }, s.name));
  } catch {
    // the pickers keep "all sources"
  }
}

function show() {
  const status = location.pathname === '/status';
  // A citation's anchor (#t1-src2) stays in the chat it belongs to.
  const chat = !status && (location.hash === '#chat' || /^#t\d+-src\d+$/.test(location.hash));
  $('#search-view').hidden = status || chat;
  $('#chat-view').hidden = !chat;
  $('#status-view').hidden = !status;
  for (const [id, on] of [['#nav-search', !status && !chat], ['#nav-chat', chat], ['#nav-status', status]]) {
    if (on) $(id).setAttribute('aria-current', 'page');
    else $(id).removeAttribute('aria-current');
  }
  return { status, chat };
}

document.addEventListener('DOMContentLoaded', async () => {
  translate();
  $('#token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('#token').value.trim());
    $('#token-form').hidden = true;
    const waiting = tokenWaiters;
    tokenWaiters = [];
    for (const w of waiting) w();
  });
  window.addEventListener('hashchange', show);
  const { status } = show();
  if (status) return showStatus();
  const params = new URLSearchParams(location.search);
  $('#q').value = params.get('q') || '';
  await fillSources();
  $('#source').value = params.get('source') || '';
  $('#search-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = $('#q').value.trim();
    const source = $('#source').value;
    history.replaceState(null, '', `/?${new URLSearchParams({ q, ...(source ? { source } : {}) })}`);
    runSearch(q, source);
  });
  $('#chat-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = $('#message').value.trim();
    if (!text) return;
    $('#message').value = '';
    sendChat(text, $('#chat-source').value);
  });
  $('#message').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) {
      ev.preventDefault();
      $('#chat-form').requestSubmit();
    }
  });
  if ($('#q').value) runSearch($('#q').value, $('#source').value);
});
