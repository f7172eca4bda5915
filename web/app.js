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
    }
  : {
      search: 'Search', chat: 'Chat', status: 'Status', query: 'Query', queryPlaceholder: 'What are you looking for?', source: 'Source',
      allSources: 'All sources', searchButton: 'Search', message: 'Message', messagePlaceholder: 'Ask a question', send: 'Send',
      sources: 'Sources', name: 'Name', kind: 'Kind', commit: 'Commit', indexedAt: 'Indexed', sourceRun: 'Last run', chunks: 'Chunks', runs: 'Runs',
      tokenLabel: 'Bearer token', tokenSave: 'Use for this tab', related: 'related', score: 'score', noResults: 'No results',
      results: (n) => `${n} result${n === 1 ? '' : 's'}`, searching: 'Searching…', noRefs: 'no references', you: 'You',
      assistant: 'Assistant', healthy: 'healthy', unhealthy: 'unhealthy', lastRun: 'last run', never: 'never run',
      chart: (n) => `Last ${n} runs: bars are texts embedded, the line is duration`, texts: 'texts embedded', seconds: 's',
      failed: 'Request failed',
    };

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
    el('p', { class: 'snippet' }, highlighted(snippet(r.content || ''), q)),
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
function sourceCards(sources) {
  if (!sources.length) return el('p', { class: 'none' }, T.noRefs);
  return el(
    'ul',
    { class: 'cards', 'aria-label': T.sources },
    sources.map((s, i) =>
      el(
        'li',
        { class: 'card' },
        el('span', { class: 'n' }, `[${i + 1}]`),
        /^https?:/.test(s.url) ? el('a', { href: s.url, rel: 'noopener' }, s.title) : el('strong', {}, s.title),
        el('div', { class: 'meta' }, /^https?:/.test(s.url) ? '' : s.url),
        el('p', {}, s.transcript),
      ),
    ),
  );
}
async function sendChat(text, source) {
  conversation.push({ id: `u${conversation.length}`, role: 'user', parts: [{ type: 'text', text }] });
  const answer = el('div', { class: 'answer' });
  const cards = el('div', { class: 'sources' });
  const turn = el('div', { class: 'turn assistant-turn' }, el('div', { class: 'who' }, T.assistant), cards, answer);
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
        if (chunk.type === 'data-sources') cards.replaceChildren(sourceCards(chunk.data));
        else if (chunk.type === 'text-delta') answer.textContent = reply += chunk.delta;
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
function runsChart(runs) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = (tag, attrs = {}, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const list = [...runs].reverse();
  const W = 640, H = 180, pad = 30, n = Math.max(list.length, 1), bw = (W - 2 * pad) / n;
  const secs = list.map((r) => (r.finishedAt ? (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000 : 0));
  const maxT = Math.max(1, ...list.map((r) => r.textsEmbedded));
  const maxS = Math.max(1, ...secs);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-labelledby': 'runs-caption' });
  root.append(svg('title', { id: 'runs-caption' }, T.chart(list.length)));
  const points = [];
  list.forEach((r, i) => {
    const h = ((H - 2 * pad) * r.textsEmbedded) / maxT;
    const x = pad + i * bw;
    const bar = svg('rect', { class: 'bar', x: x + bw * 0.15, y: H - pad - h, width: bw * 0.7, height: Math.max(h, 1) });
    bar.append(svg('title', {}, `#${r.id} ${r.status}: ${r.textsEmbedded} ${T.texts}, ${secs[i].toFixed(1)} ${T.seconds}`));
    root.append(bar);
    points.push(`${x + bw / 2},${H - pad - ((H - 2 * pad) * secs[i]) / maxS}`);
  });
  if (points.length) root.append(svg('polyline', { class: 'dur', points: points.join(' ') }));
  for (const p of points) root.append(svg('circle', { class: 'dot', cx: p.split(',')[0], cy: p.split(',')[1], r: 3 }));
  root.append(svg('text', { x: pad, y: 14 }, `${T.texts} ≤ ${maxT} · ${T.seconds} ≤ ${maxS.toFixed(1)}`));
  return el('div', {}, root, el('figcaption', {}, T.chart(list.length)));
}
async function showStatus() {
  try {
    const [s, health] = await Promise.all([json('/status?runs=30'), fetch('/healthz').then((r) => r.json()).catch(() => null)]);
    const lastRunOf = (name) => {
      for (const r of s.runs) {
        const mine = (r.sources || []).find((x) => x.source === name);
        if (mine) return `${mine.status} · #${r.id} ${r.finishedAt || r.startedAt}`;
      }
      return '—';
    };
    $('#sources-table tbody').replaceChildren(
      ...s.sources.map((x) =>
        el(
          'tr',
          {},
          el('td', {}, x.name),
          el('td', {}, x.kind),
          el('td', {}, x.url || ''),
          el('td', {}, commitLink(x)),
          el('td', {}, x.indexedAt || '—'),
          el('td', {}, lastRunOf(x.name)),
          el('td', {}, String(x.chunks)),
        ),
      ),
    );
    $('#runs-chart').replaceChildren(runsChart(s.runs));
    const last = s.runs[0];
    const ok = health ? health.ok !== false : true;
    const why = health && typeof health.reason === 'string' ? ` (${health.reason})` : '';
    $('#health').textContent = `${ok ? T.healthy : T.unhealthy}${why} · ${T.lastRun}: ${last ? `${last.status} ${last.finishedAt || last.startedAt}` : T.never}`;
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
  const chat = !status && location.hash === '#chat';
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
