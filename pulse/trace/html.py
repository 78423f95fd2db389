"""The trace page: one HTML file (inline CSS and JavaScript, no server, no network request), readable
offline in any browser.

The page embeds an index (the runs, and per episode what the list and the filters need); each
episode's detail (timeline, checkpoints, deliveries, prompts) is in chunks of one run and one persona
chain. A small set embeds its chunks in the page (one self-contained file); a set whose chunks pass
`inline_mb` (or `lazy=always`) writes them as `<page stem>_episodes/<chunk>.js` next to the page,
each loaded on demand with a `<script>` element when an episode of it is opened (works from
`file://`, no server): the page then opens at the size of its index (about 150 bytes an episode).

Layout: the runs (method, benchmark, seed, agent, score, run directory relative to the page);
filters by method, persona, benchmark and "show" (wrong interventions / misled interventions / failed
checkpoints / failed episodes) and a task search; the episode list; the selected episode's detail
(request, checkpoints passed / failed, each failed one linked to the step of the call that set it,
what was delivered with the request, and the timeline: each event with the memory agent's decision,
the policy's prompt and raw output, the retrieval with each item's reason, the gate's message and
the held call's verdict (correct / wrong / misled), every method's deliveries the task agent took
(supplements, reminders, injected banks; a transient reminder is marked as context of the next call
only) and what the task agent did next). "Side by side" shows every run's episode of the same task
and seed in columns (e.g. pulse vs none; the method filter applies). The URL fragment holds the view
(`#ep=<run>:<task>` or `#compare=<run>:<task>`, then `&only=1` for the memory actions only, `&method=`, `&persona=`,
`&bench=`, `&show=wrong|misled|failed|error`, `&step=N`), so a link or a headless screenshot opens a
given view. All data reach the page through `textContent`, never as markup, so tool outputs cannot
inject HTML.
"""

from __future__ import annotations

import html
import json
import os
import shutil
from pathlib import Path
from typing import Any

from pulse.trace.load import SUMMARY, find_runs, load_run

CHUNK_EPISODES = 40  # episodes per detail chunk (one run, one persona chain)

CSS = """
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 18px}header h1{font-size:18px;margin:0 0 4px}
header summary{cursor:pointer;color:#cfd6e4;font-size:12px}header table{border-collapse:collapse;font-size:12px;color:#cfd6e4}header td,header th{padding:1px 10px 1px 0;text-align:left}
#controls{display:flex;gap:12px;align-items:center;padding:8px 18px;background:#e9ecf2;border-bottom:1px solid #d4d9e3;flex-wrap:wrap}
#controls label{font-size:12px;color:#4a5366}select,input{font:inherit;padding:2px 4px}
main{display:flex;min-height:calc(100vh - 120px)}#list{width:560px;flex:none;overflow:auto;border-right:1px solid #d4d9e3;background:#fff}
#list table{width:100%;border-collapse:collapse;font-size:12px}#list td,#list th{padding:4px 6px;border-bottom:1px solid #eef0f4;text-align:left}
#list tr.ep{cursor:pointer}#list tr.ep:hover{background:#f0f4ff}#list tr.sel{background:#dce6ff}
#detail{flex:1;overflow:auto;padding:12px 18px}.cols{display:flex;gap:14px;align-items:flex-start;overflow-x:auto}.cols>.card{flex:1;min-width:360px}
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
.wrong{background:#fde2e1;color:#8c1d18}.neutral{background:#eef0f4;color:#33405a}.verdict{font-weight:700;margin-left:6px}
.v-correct{color:#17602c}.v-wrong,.v-misled{color:#8c1d18}.ev.flag{border-color:#d33;background:#fff6f5}.ev.hl{outline:2px solid #f0b070}
.dlv{margin:4px 0 6px 0;padding:6px 8px;border-radius:4px;font-size:12px;background:#eef7ee;border:1px solid #a8d5b0}
.dlv.transient{background:#f5f0ff;border:1px dashed #a58fd6}a.cp{text-decoration:none}.failed-here{color:#8c1d18;font-size:12px;margin:2px 0}
"""

JS = r"""
const D = JSON.parse(document.getElementById('pulse-trace-data').textContent);
for (const e of D.episodes) { const r = D.runs[e.run]; e.key = e.run + ':' + e.task_id; e.method = r.method; e.benchmark = r.benchmark; e.seed = r.seed; }
const CH = {}, WAIT = {}, BAD = {};
const inl = document.getElementById('pulse-trace-details');
if (inl) Object.assign(CH, JSON.parse(inl.textContent));
window.PulseTrace = {chunk(id, data) { CH[id] = data; delete WAIT[id]; detail(); }};
const S = {method: '', persona: '', bench: '', show: '', q: '', key: null, compare: false, only: false, step: null};
const MAX_ROWS = 1000;
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of kids.flat(Infinity)) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}
const fmt = v => v === null || v === undefined ? 'n/a' : (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : String(v));
const argText = a => Object.entries(a || {}).filter(([k]) => k !== 'subgoal').map(([k, v]) => k + '=' + v).join(', ');
const uniq = xs => [...new Set(xs)].sort();
const SHOW = {wrong: ['wrong interventions', e => e.wrong > 0], misled: ['misled interventions', e => e.misled > 0],
  failed: ['failed checkpoints', e => e.failed > 0], error: ['failed episodes', e => e.status && e.status !== 'ok']};
function visible() {
  const q = S.q.toLowerCase(), f = SHOW[S.show];
  return D.episodes.filter(e => (!S.method || e.method === S.method) && (!S.persona || e.persona === S.persona)
    && (!S.bench || e.benchmark === S.bench) && (!f || f[1](e)) && (!q || e.task_id.toLowerCase().includes(q)));
}
function need(eps) {  // true when every episode's detail is here; else loads the missing chunks (then detail() redraws)
  let ok = true;
  for (const e of eps) {
    if (e.chunk in CH) continue;
    ok = false;
    if (!(e.chunk in WAIT) && !(e.chunk in BAD) && D.lazy) {
      WAIT[e.chunk] = 1;
      const s = document.createElement('script');
      s.src = D.lazy + '/' + e.chunk + '.js';
      s.onerror = () => { BAD[e.chunk] = s.src; delete WAIT[e.chunk]; detail(); };
      document.head.append(s);
    }
  }
  return ok;
}
const full = e => Object.assign({}, e, (CH[e.chunk] || {})[e.key] || {});
function controls() {
  const c = document.getElementById('controls'); c.replaceChildren();
  const sel = (label, key, values, names) => h('label', {}, label + ' ', h('select', {id: 'f-' + key, onchange: ev => { S[key] = ev.target.value; go(); }},
    h('option', {value: ''}, 'all'), values.map(v => { const o = h('option', {value: v}, names ? names[v][0] : v); if (S[key] === v) o.selected = true; return o; })));
  c.append(sel('Method', 'method', uniq(D.episodes.map(e => e.method))), sel('Persona', 'persona', uniq(D.episodes.map(e => e.persona))),
    sel('Benchmark', 'bench', uniq(D.episodes.map(e => e.benchmark))), sel('Show', 'show', Object.keys(SHOW), SHOW),
    h('label', {}, 'Task ', h('input', {id: 'f-q', value: S.q, placeholder: 'task id', oninput: ev => { S.q = ev.target.value; list(); }})),
    h('span', {class: 'btn' + (S.compare ? ' on' : ''), id: 'compare-btn', onclick: () => { S.compare = !S.compare; go(); }}, 'Side by side'),
    h('span', {class: 'btn' + (S.only ? ' on' : ''), id: 'only-btn', title: 'show only the events where a memory method acted (supplements, reminders, interventions)',
      onclick: () => { S.only = !S.only; go(); }}, 'Memory actions only'),
    h('span', {class: 'muted', id: 'count'}, ''));
}
function list() {
  const eps = visible();
  document.getElementById('count').textContent = eps.length + ' of ' + D.episodes.length + ' episodes' + (eps.length > MAX_ROWS ? ' (first ' + MAX_ROWS + ' listed; narrow with the filters)' : '');
  const rows = eps.slice(0, MAX_ROWS).map(e => h('tr', {class: 'ep' + (e.key === S.key ? ' sel' : ''), 'data-key': e.key, onclick: () => { S.key = e.key; S.step = null; go(); }},
    h('td', {}, e.task_id), h('td', {}, e.persona), h('td', {}, e.method), h('td', {class: 'score'}, fmt(e.score)),
    h('td', {title: 'interventions / supplements'}, fmt(e.n_int) + ' / ' + fmt(e.n_sup)),
    h('td', {class: e.wrong || e.misled || e.failed ? 'err' : '', title: 'wrong interventions / misled interventions / failed checkpoints'}, e.wrong + ' / ' + e.misled + ' / ' + e.failed),
    h('td', {class: e.status === 'ok' ? '' : 'err'}, e.status)));
  document.getElementById('list').replaceChildren(h('table', {}, h('tr', {}, ['task', 'persona', 'method', 'score', 'int/sup', 'wr/mis/cp', 'status'].map(t => h('th', {}, t))), rows));
}
function item(e, x) { return typeof x === 'string' ? Object.assign({id: x}, (e.items || {})[x] || {}) : Object.assign({}, (e.items || {})[x.id] || {}, x); }
function itemsTable(e, items, withReason) {
  return h('table', {class: 'items'}, h('tr', {}, ['id', 'kind', 'slot = value', ...(withReason ? ['score', 'reason'] : ['text'])].map(t => h('th', {}, t))),
    items.map(x => item(e, x)).map(m => h('tr', {}, h('td', {}, m.id), h('td', {}, m.kind || ''), h('td', {class: 'args'}, m.slot ? m.slot + ' = ' + m.value : (m.text || '')),
      ...(withReason ? [h('td', {}, fmt(m.score)), h('td', {}, m.reason || '')] : [h('td', {}, m.text || '')]))));
}
function chips(items, cls) { return items.map(m => h('span', {class: 'chip ' + cls, title: m.text || ''}, m.id + ' ' + (m.slot ? m.slot + '=' + m.value : ''))); }
function policyBox(t) {
  return t.policy ? t.policy.map(p => h('details', {class: 'policy'}, h('summary', {}, (p.purpose ? 'memory LLM (' + p.purpose + ')' : 'policy' + (p.speculative ? ' (decided ahead)' : '')) + ': prompt and raw output'),
    h('div', {class: 'muted'}, 'prompt'), h('pre', {class: 'prompt'}, p.prompt), h('div', {class: 'muted'}, 'raw output'), h('pre', {class: 'output'}, p.output))) : null;
}
function cpLink(e, id) {
  const k = (e.checkpoints || []).find(c => c.id === id) || {id: id};
  return h('a', {class: 'cp chip fail', href: '#', title: id, 'data-step': k.step === undefined ? '' : k.step,
    onclick: ev => { ev.preventDefault(); if (k.step !== undefined) { S.key = e.key; S.step = k.step; go(); } }},
    '\u2717 ' + (k.slot ? k.slot + '=' + k.expected + (k.stage ? ' (' + k.stage + ', ' + k.source + ')' : '') : id) + (k.step !== undefined ? ' \u2192 step ' + k.step : ''));
}
function pulseBox(e, t) {
  const g = t.gate, d = t.decision, action = (g || d).action;
  const why = d ? ('trigger: ' + (d.trigger || 'none') + (d.policy_called ? '; policy ran' : '; no policy call') + (d.parse_ok === false ? '; PARSE FAILURE' : '')
    + (d.converted ? '; ' + d.converted : '')) : '';
  const msg = g && g.message ? g.message : (t.delivered ? t.delivered.message : '');
  const retr = t.retrieval ? h('details', {}, h('summary', {}, 'retrieval: ' + t.retrieval.items.length + ' item(s)' + (t.retrieval.subgoal ? ' for "' + t.retrieval.subgoal + '"' : '')), itemsTable(e, t.retrieval.items, true)) : null;
  if (action === 'silent') return h('div', {class: 'pulse a-silent'}, h('span', {class: 'act'}, 'Pulse: silent'), ' ', h('span', {class: 'muted'}, why), retr, policyBox(t));
  // evidence chips: green only for a correct intervention's evidence, red for a wrong or misled one, neutral otherwise
  const cls = t.verdict === 'correct' ? 'pass' : (t.verdict ? 'wrong' : 'neutral');
  return h('div', {class: 'pulse a-' + action, 'data-verdict': t.verdict || ''}, h('span', {class: 'act'}, 'Pulse: ' + action),
    t.verdict ? h('span', {class: 'verdict v-' + t.verdict}, t.verdict === 'misled' ? 'MISLED: the held call was right, the final call is not'
      : (t.verdict === 'wrong' ? 'WRONG intervention' : 'correct intervention')) : null,
    t.verdict ? h('span', {class: 'muted'}, t.fixed ? ' (final call right)' : ' (final call not right)') : null,
    ' ', h('span', {class: 'muted'}, why),
    t.evidence_items && t.evidence_items.length ? h('div', {}, 'evidence: ', chips(t.evidence_items, cls)) : null,
    t.checkpoints && t.checkpoints.length ? h('div', {class: 'failed-here'}, 'failed checkpoint(s) of this artifact: ', t.checkpoints.map(id => cpLink(e, id))) : null,
    msg ? h('pre', {}, msg) : null,
    t.next ? h('div', {class: 'next'}, 'Agent next: ' + t.next) : null, retr, policyBox(t));
}
function deliveryBox(e, dl) {
  const what = dl.source === 'initial' ? 'delivered with the request' : (dl.transient ? 'reminder (transient: context of the next call only)' : 'supplement (stays in the conversation)');
  return h('div', {class: 'dlv' + (dl.transient ? ' transient' : ''), 'data-source': dl.source},
    h('span', {class: 'act'}, e.method + ': ' + what), ' ', h('span', {class: 'muted'}, 'decided at step ' + dl.step
      + (dl.after_step === null ? ', never taken by the task agent' : ', taken before the next decision') + '; ' + dl.items.length + ' item(s)'),
    h('pre', {}, dl.message), dl.items.length ? h('details', {}, h('summary', {}, 'items'), itemsTable(e, dl.items, false)) : null);
}
function cpChip(k) { return h('span', {class: 'chip ' + (k.passed ? 'pass' : 'fail'), title: k.id}, (k.passed ? '\u2713 ' : '\u2717 ') + (k.slot ? k.slot + '=' + k.expected + ' (' + k.stage + ', ' + k.source + ')' : k.id)); }
function card(e) {
  const run = D.runs[e.run];
  const c = h('div', {class: 'card', 'data-key': e.key},
    h('h2', {}, e.method + ' \u00b7 ' + e.task_id), h('div', {class: 'muted'}, 'persona ' + e.persona + ' \u00b7 ' + e.benchmark + ' seed ' + fmt(e.seed)
      + ' \u00b7 ' + run.agent + ' agent' + (run.simulated ? ' (sim)' : '') + ' \u00b7 status ' + e.status + ' \u00b7 run ' + run.dir),
    h('div', {}, 'score ', h('span', {class: 'score'}, fmt(e.score)), e.checkpoints_total !== null && e.checkpoints_total !== undefined ? ' \u00b7 checkpoints ' + e.checkpoints_passed + '/' + e.checkpoints_total : '',
      ' \u00b7 ' + Object.entries(e.counters || {}).map(([k, v]) => k + ' ' + fmt(v)).join(', ')),
    Object.keys(e.components || {}).length ? h('div', {}, 'components: ' + Object.entries(e.components).map(([k, v]) => k + ' ' + fmt(v)).join(', ')) : null,
    e.error ? h('div', {class: 'err'}, e.error) : null);
  if (e.request) c.append(h('div', {class: 'req'}, h('b', {}, 'Request: '), e.request));
  if (e.checkpoints && e.checkpoints.length) c.append(h('div', {class: 'checkpoints'}, 'Checkpoints: ',
    e.checkpoints.map(k => !k.passed && k.step !== undefined ? cpLink(e, k.id) : cpChip(k))));
  if (!e.traced) { c.append(h('p', {class: 'muted'}, 'No timeline: this run was recorded without PULSE_TRACE=1.')); return c; }
  if (e.initial) c.append(h('details', {}, h('summary', {}, 'Delivered with the request: ' + e.initial.items.length + ' item(s)'), h('pre', {}, e.initial.message), itemsTable(e, e.initial.items, false)));
  if (e.not_taken && e.not_taken.length) c.append(h('details', {}, h('summary', {}, 'Delivered but never taken by the task agent: ' + e.not_taken.length), e.not_taken.map(dl => deliveryBox(e, dl))));
  const tl = h('div', {class: 'timeline'});
  for (const t of e.timeline) {
    if (S.only && !t.evidence_items && !t.deliveries && t.kind !== 'request' && !t.failed) continue;
    const body = t.kind === 'candidate_call' || t.kind === 'tool_result' ? [h('b', {}, t.tool), ' ', h('span', {class: 'args'}, '(' + argText(t.args) + ')'), t.text && t.kind === 'tool_result' ? ' \u2192 ' + t.text : '']
      : [t.role ? t.role + ': ' : '', t.text || '', t.announced ? h('div', {class: 'args muted'}, 'intended: ' + argText(t.announced)) : null];
    const bad = (t.verdict && t.verdict !== 'correct') || (t.failed && t.failed.length);
    tl.append(h('div', {class: 'ev ' + t.kind + (bad ? ' flag' : '') + (S.step === t.step && S.key === e.key ? ' hl' : ''), 'data-step': t.step, id: 'step-' + e.run + '-' + t.step},
      h('span', {class: 'k'}, '#' + t.step + ' ' + t.kind.replace('_', ' ')), ...body,
      t.failed ? h('div', {class: 'failed-here'}, 'checkpoint failed here: ', t.failed.map(id => { const k = e.checkpoints.find(x => x.id === id) || {};
        return h('span', {class: 'chip fail', title: id}, '\u2717 ' + (k.slot ? k.slot + '=' + k.expected + ' (got ' + fmt(k.got) + ')' : id)); })) : null,
      (t.gate || t.decision) ? pulseBox(e, t) : (t.policy ? policyBox(t) : null),
      (t.deliveries || []).map(dl => deliveryBox(e, dl))));
  }
  c.append(h('div', {class: 'muted'}, 'Timeline'), tl);
  return c;
}
function detail() {
  const d = document.getElementById('detail');
  const e = D.episodes.find(x => x.key === S.key);
  if (!e) { d.replaceChildren(h('p', {class: 'muted'}, 'Select an episode.')); return; }
  const eps = S.compare ? D.episodes.filter(x => x.task_id === e.task_id && x.benchmark === e.benchmark && x.seed === e.seed && (!S.persona || x.persona === S.persona)
    && (!S.method || x.method === S.method || x.key === e.key)) : [e];
  const bad = eps.filter(x => BAD[x.chunk]);
  if (bad.length) { d.replaceChildren(h('p', {class: 'err'}, 'Could not load ' + BAD[bad[0].chunk] + ': keep the folder ' + D.lazy + '/ next to this page.')); return; }
  if (!need(eps)) { d.replaceChildren(h('p', {class: 'muted', id: 'loading'}, 'Loading ' + eps.length + ' episode(s)\u2026')); return; }
  if (!S.compare) d.replaceChildren(card(full(e)));
  else d.replaceChildren(h('div', {class: 'muted'}, 'Side by side: ' + e.task_id + ' in ' + eps.length + ' run(s)'), h('div', {class: 'cols'}, eps.map(x => card(full(x)))));
  const at = S.step !== null ? document.getElementById('step-' + e.run + '-' + S.step) : null;
  if (at && at.scrollIntoView) at.scrollIntoView({block: 'start'});
  document.body.setAttribute('data-detail', S.key);
}
function go() {
  const f = [(S.compare ? 'compare=' : 'ep=') + encodeURIComponent(S.key || '')];
  if (S.only) f.push('only=1');
  for (const k of ['method', 'persona', 'bench', 'show']) if (S[k]) f.push(k + '=' + encodeURIComponent(S[k]));
  if (S.step !== null) f.push('step=' + S.step);
  location.hash = f.join('&'); draw();
}
function draw() { controls(); list(); detail(); }
function fromHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.has('ep') || p.has('compare')) { S.compare = p.has('compare'); S.key = p.get('compare') || p.get('ep'); }
  S.only = p.get('only') === '1';
  for (const k of ['method', 'persona', 'bench', 'show']) S[k] = p.get(k) || '';
  S.step = p.has('step') ? Number(p.get('step')) : null;
  if (!S.key && D.episodes.length) { const v = visible(); S.key = (v[0] || D.episodes[0]).key; }
}
window.addEventListener('hashchange', () => { fromHash(); draw(); });
fromHash(); draw();
document.body.setAttribute('data-ready', '1');
"""


def _runs_table(runs: list[dict[str, Any]], limit: int = 60) -> str:
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
        for r in runs[:limit]
    )
    more = f"<tr><td colspan=8>… and {len(runs) - limit} more runs</td></tr>" if len(runs) > limit else ""
    table = f"<table>{rows}{more}</table>"
    if len(runs) <= 8:
        return table
    return f"<details><summary>{len(runs)} runs</summary>{table}</details>"


def default_title(runs: list[dict[str, Any]]) -> str:
    shown = sorted({f"{r['method']} / {r['benchmark']}" for r in runs})
    if len(shown) <= 4:
        return "Pulse trace: " + ", ".join(shown)
    methods, benches = {r["method"] for r in runs}, {r["benchmark"] for r in runs}
    return f"Pulse trace: {len(runs)} runs ({len(methods)} methods, {len(benches)} benchmarks)"


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _in_script(text: str) -> str:
    # every "<" as \u003c: no data can close the script element or open a comment inside it
    return text.replace("<", "\\u003c")


class Pages:
    """Episodes -> the page's index and its detail chunks (one run and one persona chain, at most
    CHUNK_EPISODES episodes each; JSON text, so a large set is held as strings, not objects)."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.index: list[dict[str, Any]] = []
        self.chunks: dict[str, str] = {}  # chunk id -> JSON of {episode key: detail}

    def add_run(self, run: dict[str, Any], episodes: list[dict[str, Any]]) -> None:
        self.runs.append(run)
        chunks: dict[str, dict[str, Any]] = {}
        current: dict[str, str] = {}  # persona -> its open chunk
        for e in episodes:
            cid = current.get(e["persona"])
            if cid is None or len(chunks[cid]) >= CHUNK_EPISODES:
                cid = current[e["persona"]] = f"{run['index']:04d}-{len(chunks):03d}"
                chunks[cid] = {}
            chunks[cid][e["key"]] = {
                k: v for k, v in e.items() if k not in SUMMARY and k not in ("method", "benchmark")
            }
            self.index.append({**{k: e[k] for k in SUMMARY if k != "key"}, "chunk": cid})  # key: run:task_id
        self.chunks.update({cid: _json(members) for cid, members in chunks.items()})

    @property
    def detail_bytes(self) -> int:
        return sum(len(c.encode()) for c in self.chunks.values())


def page_html(
    runs: list[dict[str, Any]],
    index: list[dict[str, Any]],
    title: str,
    inline: dict[str, str] | None,
    lazy: str = "",
) -> str:
    t = html.escape(title)
    data: dict[str, Any] = {"runs": runs, "episodes": index}
    if lazy:
        data["lazy"] = lazy
    details = ""
    if inline is not None:
        body = "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in inline.items()) + "}"
        details = f'<script type="application/json" id="pulse-trace-details">{_in_script(body)}</script>'
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{t}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>'
        f'<body><header><h1>{t}</h1>{_runs_table(runs)}</header><div id="controls"></div>'
        f'<main><div id="list"></div><div id="detail"></div></main>'
        f'<script type="application/json" id="pulse-trace-data">{_in_script(_json(data))}</script>{details}'
        f"<script>{JS}</script></body></html>\n"
    )


def render(data: dict[str, Any], title: str = "Pulse trace") -> str:
    """`load()`'s data -> one self-contained page (every episode's detail embedded)."""
    p = Pages()
    by_run: dict[int, list] = {}
    for e in data["episodes"]:
        by_run.setdefault(e["run"], []).append(e)
    for r in data["runs"]:
        p.add_run(r, by_run.get(r["index"], []))
    return page_html(p.runs, p.index, title, p.chunks)


def _scrub(text: str, roots: list[tuple[str, str]]) -> str:
    """Absolute paths of the runs, the page's folder and the working directory, as JSON text holds
    them, made relative (longest first): no absolute path reaches the page."""
    for root, rel in roots:
        esc = json.dumps(root)[1:-1]
        text = text.replace(esc + "/", rel).replace(esc, rel.rstrip("/") or ".")
    return text


def _write(path: Path, text: str) -> None:
    from pulse.utils.atomic import atomic_write_text

    atomic_write_text(path, text)
    os.chmod(path, 0o644)  # pages are for reading by others (the atomic write's temp file is 0600)


def write_page(
    paths: list[str],
    out: Path,
    title: str = "",
    max_episodes: int = 0,
    lazy: str = "auto",
    inline_mb: float = 4.0,
) -> dict[str, Any]:
    """Write the self-contained page of the runs under `paths`.

    Args:
        paths: run directories or folders holding them (`pulse.trace.load.find_runs`).
        out: the page's file; with lazy details, `<stem>_episodes/` beside it holds them.
        title: the page title ("" = the methods and benchmarks shown).
        max_episodes: episodes read per run (0 = all).
        lazy: "auto" (details inline up to `inline_mb`, else in the folder), "always" or "never".
        inline_mb: the inline details' limit in MB (lazy="auto").

    Returns:
        What was written: {"out", "runs", "episodes", "traced" (episodes with a timeline),
        "page_bytes", "detail_bytes", "lazy" (the details folder or None), "chunks"}.

    Raises:
        ValueError: an unknown `lazy` mode.
        TraceError: a path that is not a run directory, or a malformed row.
    """
    if lazy not in ("auto", "always", "never"):
        raise ValueError(f"lazy={lazy!r}: expected auto, always or never")
    base = out.parent
    folder = out.with_name(out.stem + "_episodes")
    if folder.is_dir() and all(f.suffix == ".js" for f in folder.iterdir()):
        shutil.rmtree(folder)  # an earlier page's chunks (nothing but .js files)
    p = Pages()
    roots: list[tuple[str, str]] = [(str(base.resolve()), ""), (str(Path.cwd().resolve()), "")]
    is_lazy, flushed, n_chunks = lazy == "always", 0, 0
    for i, run_dir in enumerate(find_runs(paths)):
        run, eps = load_run(run_dir, i, max_episodes, base)
        p.add_run(run, eps)
        roots.append((str(run_dir.resolve()), run["dir"] + "/"))
        roots = sorted({r for r in roots if r[0] not in ("/", "")}, key=lambda r: -len(r[0]))
        is_lazy = is_lazy or (lazy == "auto" and flushed + p.detail_bytes > inline_mb * 1e6)
        if is_lazy:  # written as they come: a large set is never held in memory whole
            folder.mkdir(parents=True, exist_ok=True)
            os.chmod(folder, 0o755)
            for cid, body in p.chunks.items():
                _write(folder / f"{cid}.js", f"PulseTrace.chunk({json.dumps(cid)},{_scrub(body, roots)});\n")
            flushed += p.detail_bytes
            n_chunks += len(p.chunks)
            p.chunks.clear()
    title = title or default_title(p.runs)
    text = page_html(p.runs, p.index, title, None if is_lazy else p.chunks, folder.name if is_lazy else "")
    _write(out, _scrub(text, roots))
    return {
        "out": out,
        "runs": len(p.runs),
        "episodes": len(p.index),
        "traced": sum(e["traced"] for e in p.index),
        "page_bytes": out.stat().st_size,
        "detail_bytes": flushed + p.detail_bytes,
        "lazy": folder if is_lazy else None,
        "chunks": n_chunks + len(p.chunks),
    }
