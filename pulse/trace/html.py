"""The trace page: one self-contained HTML file (inline CSS and JavaScript, the data embedded as
JSON), readable offline in any browser; nothing is fetched at view time.

Layout: the runs (method, benchmark, seed, agent, score); filters by method, persona and benchmark
and a task search; the episode list; the selected episode's detail (request, checkpoints passed /
failed, what was delivered with the request, and the timeline: each event with the memory agent's
decision, the retrieval with each item's reason, the gate's message and what the task agent did
next). "Side by side" shows every run's episode of the same task in columns (e.g. pulse vs none).
The URL fragment holds the view (`#ep=<run>:<task>` or `#compare=<run>:<task>`, then `&only=1` for
the supplements and interventions only, `&method=`, `&persona=`, `&bench=` for the filters), so a link
or a headless screenshot opens a given view. All data reach the page through `textContent`, never
as markup, so tool outputs cannot inject HTML.
"""

from __future__ import annotations

import html
import json
from typing import Any

CSS = """
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 18px}header h1{font-size:18px;margin:0 0 4px}
header table{border-collapse:collapse;font-size:12px;color:#cfd6e4}header td,header th{padding:1px 10px 1px 0;text-align:left}
#controls{display:flex;gap:12px;align-items:center;padding:8px 18px;background:#e9ecf2;border-bottom:1px solid #d4d9e3;flex-wrap:wrap}
#controls label{font-size:12px;color:#4a5366}select,input{font:inherit;padding:2px 4px}
main{display:flex;min-height:calc(100vh - 120px)}#list{width:460px;flex:none;overflow:auto;border-right:1px solid #d4d9e3;background:#fff}
#list table{width:100%;border-collapse:collapse;font-size:12px}#list td,#list th{padding:4px 6px;border-bottom:1px solid #eef0f4;text-align:left}
#list tr.ep{cursor:pointer}#list tr.ep:hover{background:#f0f4ff}#list tr.sel{background:#dce6ff}
#detail{flex:1;overflow:auto;padding:12px 18px}.cols{display:flex;gap:14px;align-items:flex-start}.cols>.card{flex:1;min-width:0}
.card{background:#fff;border:1px solid #d4d9e3;border-radius:6px;padding:10px 12px;margin-bottom:12px}
.card h2{font-size:15px;margin:0 0 6px}.muted{color:#6b7385;font-size:12px}.req{background:#f3f5f9;padding:6px 8px;border-radius:4px;margin:6px 0}
.chip{display:inline-block;border-radius:10px;padding:1px 8px;margin:2px 3px 2px 0;font-size:11px}
.pass{background:#dff3e4;color:#17602c}.fail{background:#fde2e1;color:#8c1d18}
.ev{border-left:3px solid #d4d9e3;padding:3px 0 3px 10px;margin:2px 0}.ev .k{display:inline-block;min-width:96px;font-size:11px;color:#4a5366;text-transform:uppercase}
.ev.candidate_call{border-color:#6b7385}.ev.request{border-color:#1d2330}.ev.tool_result{border-color:#c9ced8}
.args{font-family:ui-monospace,Menlo,monospace;font-size:12px}
.pulse{margin:4px 0 6px 0;padding:6px 8px;border-radius:4px;font-size:12px}
.a-silent{background:#f1f2f5;color:#4a5366}.a-supplement{background:#e3edff;border:1px solid #a9c2f5}.a-intervene{background:#fff0e0;border:1px solid #f0b070}
.act{font-weight:700;text-transform:uppercase}pre{white-space:pre-wrap;margin:4px 0;font-size:12px;background:rgba(255,255,255,.6);padding:4px 6px;border-radius:3px}
details{margin-top:3px}summary{cursor:pointer;color:#33508f}table.items{border-collapse:collapse;font-size:11px;margin-top:3px;width:100%}
table.items td,table.items th{border-bottom:1px solid #e6e9ef;padding:2px 4px;text-align:left;vertical-align:top}
.next{margin-top:3px;color:#17602c}.score{font-weight:700}.btn{cursor:pointer;padding:3px 10px;border:1px solid #8da2c9;border-radius:4px;background:#fff}
.btn.on{background:#33508f;color:#fff}.err{color:#8c1d18}
"""

JS = r"""
const D = JSON.parse(document.getElementById('pulse-trace-data').textContent);
const S = {method: '', persona: '', bench: '', q: '', key: null, compare: false, only: false};
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of kids.flat()) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}
const fmt = v => v === null || v === undefined ? 'n/a' : (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : String(v));
const argText = a => Object.entries(a || {}).filter(([k]) => k !== 'subgoal').map(([k, v]) => k + '=' + v).join(', ');
const uniq = xs => [...new Set(xs)].sort();
function visible() {
  const q = S.q.toLowerCase();
  return D.episodes.filter(e => (!S.method || e.method === S.method) && (!S.persona || e.persona === S.persona)
    && (!S.bench || e.benchmark === S.bench) && (!q || e.task_id.toLowerCase().includes(q)));
}
function controls() {
  const c = document.getElementById('controls'); c.replaceChildren();
  const sel = (label, key, values) => h('label', {}, label + ' ', h('select', {id: 'f-' + key, onchange: ev => { S[key] = ev.target.value; go(); }},
    h('option', {value: ''}, 'all'), values.map(v => { const o = h('option', {value: v}, v); if (S[key] === v) o.selected = true; return o; })));
  c.append(sel('Method', 'method', uniq(D.episodes.map(e => e.method))), sel('Persona', 'persona', uniq(D.episodes.map(e => e.persona))),
    sel('Benchmark', 'bench', uniq(D.episodes.map(e => e.benchmark))),
    h('label', {}, 'Task ', h('input', {id: 'f-q', value: S.q, placeholder: 'task id', oninput: ev => { S.q = ev.target.value; list(); }})),
    h('span', {class: 'btn' + (S.compare ? ' on' : ''), id: 'compare-btn', onclick: () => { S.compare = !S.compare; go(); }}, 'Side by side'),
    h('span', {class: 'btn' + (S.only ? ' on' : ''), id: 'only-btn', title: 'show only the events where Pulse supplemented or intervened',
      onclick: () => { S.only = !S.only; go(); }}, 'Pulse actions only'),
    h('span', {class: 'muted', id: 'count'}, ''));
}
function list() {
  const eps = visible();
  document.getElementById('count').textContent = eps.length + ' of ' + D.episodes.length + ' episodes';
  const rows = eps.map(e => h('tr', {class: 'ep' + (e.key === S.key ? ' sel' : ''), 'data-key': e.key, onclick: () => { S.key = e.key; go(); }},
    h('td', {}, e.task_id), h('td', {}, e.persona), h('td', {}, e.method), h('td', {class: 'score'}, fmt(e.score)),
    h('td', {title: 'interventions / supplements'}, fmt((e.counters || {}).interventions) + ' / ' + fmt((e.counters || {}).supplements)),
    h('td', {class: e.status === 'ok' ? '' : 'err'}, e.status)));
  document.getElementById('list').replaceChildren(h('table', {}, h('tr', {}, ['task', 'persona', 'method', 'score', 'int/sup', 'status'].map(t => h('th', {}, t))), rows));
}
function itemsTable(items, withReason) {
  return h('table', {class: 'items'}, h('tr', {}, ['id', 'kind', 'slot = value', ...(withReason ? ['score', 'reason'] : ['text'])].map(t => h('th', {}, t))),
    items.map(m => h('tr', {}, h('td', {}, m.id), h('td', {}, m.kind), h('td', {class: 'args'}, m.slot ? m.slot + ' = ' + m.value : m.text),
      ...(withReason ? [h('td', {}, fmt(m.score)), h('td', {}, m.reason)] : [h('td', {}, m.text)]))));
}
function pulseBox(t) {
  const g = t.gate, d = t.decision, action = (g || d).action;
  const why = d ? ('trigger: ' + (d.trigger || 'none') + (d.policy_called ? '; policy ran' : '; no policy call') + (d.parse_ok === false ? '; PARSE FAILURE' : '')
    + (d.converted ? '; ' + d.converted : '')) : '';
  const msg = g && g.message ? g.message : (t.delivered ? t.delivered.message : '');
  if (action === 'silent') return h('div', {class: 'pulse a-silent'}, h('span', {class: 'act'}, 'Pulse: silent'), ' ', h('span', {class: 'muted'}, why),
    t.retrieval ? h('details', {}, h('summary', {}, 'retrieval: ' + t.retrieval.items.length + ' item(s)'), itemsTable(t.retrieval.items, true)) : null);
  return h('div', {class: 'pulse a-' + action}, h('span', {class: 'act'}, 'Pulse: ' + action), ' ', h('span', {class: 'muted'}, why),
    t.evidence_items && t.evidence_items.length ? h('div', {}, 'evidence: ', t.evidence_items.map(m => h('span', {class: 'chip pass', title: m.text}, m.id + ' ' + m.slot + '=' + m.value))) : null,
    msg ? h('pre', {}, msg) : null,
    t.next ? h('div', {class: 'next'}, 'Agent next: ' + t.next) : null,
    t.retrieval ? h('details', {}, h('summary', {}, 'retrieval: ' + t.retrieval.items.length + ' item(s)' + (t.retrieval.subgoal ? ' for "' + t.retrieval.subgoal + '"' : '')), itemsTable(t.retrieval.items, true)) : null);
}
function card(e) {
  const run = D.runs[e.run];
  const c = h('div', {class: 'card', 'data-key': e.key},
    h('h2', {}, e.method + ' \u00b7 ' + e.task_id), h('div', {class: 'muted'}, 'persona ' + e.persona + ' \u00b7 ' + e.benchmark + ' seed ' + fmt(e.seed)
      + ' \u00b7 ' + run.agent + ' agent' + (run.simulated ? ' (sim)' : '') + ' \u00b7 status ' + e.status),
    h('div', {}, 'score ', h('span', {class: 'score'}, fmt(e.score)), e.checkpoints_total !== null && e.checkpoints_total !== undefined ? ' \u00b7 checkpoints ' + e.checkpoints_passed + '/' + e.checkpoints_total : '',
      ' \u00b7 ' + Object.entries(e.counters || {}).map(([k, v]) => k + ' ' + fmt(v)).join(', ')),
    Object.keys(e.components || {}).length ? h('div', {}, 'components: ' + Object.entries(e.components).map(([k, v]) => k + ' ' + fmt(v)).join(', ')) : null,
    e.error ? h('div', {class: 'err'}, e.error) : null);
  if (e.request) c.append(h('div', {class: 'req'}, h('b', {}, 'Request: '), e.request));
  if (e.checkpoints && e.checkpoints.length) c.append(h('div', {class: 'checkpoints'}, 'Checkpoints: ', e.checkpoints.map(k =>
    h('span', {class: 'chip ' + (k.passed ? 'pass' : 'fail'), title: k.id}, (k.passed ? '\u2713 ' : '\u2717 ') + (k.slot ? k.slot + '=' + k.expected + ' (' + k.stage + ', ' + k.source + ')' : k.id)))));
  if (!e.traced) { c.append(h('p', {class: 'muted'}, 'No timeline: this run was recorded without PULSE_TRACE=1.')); return c; }
  if (e.initial) c.append(h('details', {}, h('summary', {}, 'Delivered with the request: ' + e.initial.items.length + ' item(s)'), itemsTable(e.initial.items, false)));
  const tl = h('div', {class: 'timeline'});
  for (const t of e.timeline) {
    if (S.only && !t.evidence_items && t.kind !== 'request') continue;
    const body = t.kind === 'candidate_call' || t.kind === 'tool_result' ? [h('b', {}, t.tool), ' ', h('span', {class: 'args'}, '(' + argText(t.args) + ')'), t.text && t.kind === 'tool_result' ? ' \u2192 ' + t.text : '']
      : [t.role ? t.role + ': ' : '', t.text || ''];
    tl.append(h('div', {class: 'ev ' + t.kind, 'data-step': t.step}, h('span', {class: 'k'}, '#' + t.step + ' ' + t.kind.replace('_', ' ')), ...body,
      (t.gate || t.decision) ? pulseBox(t) : null));
  }
  c.append(h('div', {class: 'muted'}, 'Timeline'), tl);
  return c;
}
function detail() {
  const d = document.getElementById('detail');
  const e = D.episodes.find(x => x.key === S.key);
  if (!e) { d.replaceChildren(h('p', {class: 'muted'}, 'Select an episode.')); return; }
  if (!S.compare) { d.replaceChildren(card(e)); return; }
  const same = D.episodes.filter(x => x.task_id === e.task_id && x.benchmark === e.benchmark && (!S.persona || x.persona === S.persona));
  d.replaceChildren(h('div', {class: 'muted'}, 'Side by side: ' + e.task_id + ' in ' + same.length + ' run(s)'), h('div', {class: 'cols'}, same.map(card)));
}
function go() {
  const f = [(S.compare ? 'compare=' : 'ep=') + encodeURIComponent(S.key || '')];
  if (S.only) f.push('only=1');
  for (const k of ['method', 'persona', 'bench']) if (S[k]) f.push(k + '=' + encodeURIComponent(S[k]));
  location.hash = f.join('&'); draw();
}
function draw() { controls(); list(); detail(); }
function fromHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.has('ep') || p.has('compare')) { S.compare = p.has('compare'); S.key = p.get('compare') || p.get('ep'); }
  S.only = p.get('only') === '1';
  for (const k of ['method', 'persona', 'bench']) S[k] = p.get(k) || '';
  if (!S.key && D.episodes.length) S.key = D.episodes[0].key;
}
window.addEventListener('hashchange', () => { fromHash(); draw(); });
fromHash(); draw();
document.body.setAttribute('data-ready', '1');
"""


def _runs_table(runs: list[dict[str, Any]]) -> str:
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (
                r["method"],
                r["benchmark"],
                f"seed {r['seed']}",
                r["agent"] + (" (sim)" if r["simulated"] else ""),
                "score n/a" if r["score"] is None else f"score {r['score']:.3f}",
                f"{r['episodes']} episodes",
                f"{r['traced']} traced",
                r["dir"],
            )
        )
        + "</tr>"
        for r in runs
    )
    return f"<table>{rows}</table>"


def render(data: dict[str, Any], title: str = "Pulse trace") -> str:
    # every "<" as \u003c: no data can close the script element or open a comment inside it
    payload = json.dumps(data, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    t = html.escape(title)
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{t}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>'
        f'<body><header><h1>{t}</h1>{_runs_table(data["runs"])}</header><div id="controls"></div>'
        f'<main><div id="list"></div><div id="detail"></div></main>'
        f'<script type="application/json" id="pulse-trace-data">{payload}</script>'
        f"<script>{JS}</script></body></html>\n"
    )
