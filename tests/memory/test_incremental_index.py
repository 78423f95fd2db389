"""Commits update the scope index incrementally, with the same retrieval results as a full rebuild.

The reference is a second `StoreMemory` opened on the same root after each batch: it builds every
index from the store from scratch. The incremental memory must (a) never rebuild an index after
its first build, (b) return the same items with the same scores for every query, across revisions,
new Topics, new entities, cross-topic links and task-scoped records, and after compaction; and
several processes writing one memory root at once must lose nothing and keep every chain linear.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from memory_helpers import kill_harness, pref

from pulse.core.records import Event, MemoryItem
from pulse.memory import ItemMeta, RetrievalQuery, make_embedder, open_memory, scope_build, scope_index
from pulse.memory.embedders.bm25 import BM25Index, tokenize

REPO = Path(__file__).resolve().parents[2]
TOPICS = [
    "coding",
    "coding/python",
    "coding/python/tests",
    "writing",
    "writing/papers",
    "travel",
    "food/baking",
]
NEW_TOPICS = ["music", "music/jazz", "coding/rust", "writing/papers/reviews"]
ENTITIES = ["Zotero", "Overleaf", "Lisbon", "PyTorch", "Notion", "Obsidian", "Kyoto", "Figma"]
SLOTS = ["citation_style", "editor", "city", "framework", "notes_app", "font", "diet", "airline"]
WORDS = (
    "alpha beta gamma delta ember fjord garnet harbor indigo juniper kelp lagoon maple nectar onyx".split()
)


def _item(rng: random.Random, i: int, topics: list[str], when: str) -> tuple[MemoryItem, ItemMeta]:
    topic, ent = rng.choice(topics), rng.choice(ENTITIES)
    slot = rng.choice(SLOTS) + f"_{i % 5}" if rng.random() < 0.5 else ""
    text = f"{' '.join(rng.choice(WORDS) for _ in range(5))} about {topic.split('/')[-1]} with {ent} ({i})"
    links = (rng.choice(TOPICS),) if rng.random() < 0.15 else ()
    task = f"task-{i % 3}" if rng.random() < 0.1 else ""
    item = pref(
        f"i{i}",
        text,
        slot=slot,
        value=rng.choice(WORDS) if slot else "",
        topic=topic,
        entities=(ent,),
        valid_from=when,
    )
    return item, ItemMeta(links=links, task_id=task)


def _queries(rng: random.Random, n: int) -> list[RetrievalQuery]:
    out = []
    for j in range(n):
        call = Event(
            "candidate_call",
            3,
            tool="save",
            event_id=f"c{j}",
            args={rng.choice(SLOTS) + f"_{j % 5}": rng.choice(WORDS)},
        )
        out.append(
            RetrievalQuery(
                "u1",
                subgoal=f"{rng.choice(WORDS)} {rng.choice(TOPICS).split('/')[-1]} {rng.choice(ENTITIES)}",
                entities=(rng.choice(ENTITIES),),
                candidate_call=call if j % 2 else None,
                k=6,
                task_id="task-1" if j % 3 == 0 else "",
                as_of="2025-03-15T00:00:00Z" if j % 4 == 0 else "",
            )
        )
    return out


def _results(mem, queries) -> list[tuple[list[float], set[str]]]:
    """Per query: the selected scores, and the ids above the lowest one (which of several items tied
    at the cut-off score gets the last places depends on index order, in a rebuild too)."""
    out = []
    for q in queries:
        got = [(s.item.item_id, round(s.score, 4)) for s in mem.retrieve(q)]
        scores = sorted(sc for _, sc in got)
        out.append((scores, {i for i, sc in got if sc > scores[0]} if scores else set()))
    return out


def _batches(rng: random.Random, n_batches: int, size: int, start: int):
    """Batches of new records: revisions of current slots, new Topics appear from the third batch."""
    current: dict[str, str] = {}
    i = start
    for b in range(n_batches):
        topics = TOPICS + (NEW_TOPICS if b >= 2 else [])
        when = f"2025-{3 + b // 4:02d}-{1 + 7 * (b % 4):02d}T00:00:00Z"
        batch, metas = [], {}
        for _ in range(size):
            item, meta = _item(rng, i, topics, when)
            if item.slot in current and rng.random() < 0.7:  # a revision of the current record
                item = MemoryItem(**{**item.__dict__, "supersedes": current[item.slot]})
            if item.slot and not meta.task_id:
                current[item.slot] = item.item_id
            batch.append(item)
            metas[item.item_id] = meta
            i += 1
        yield batch, metas


@pytest.mark.parametrize("embedder", ["hash", "bm25"])
@pytest.mark.parametrize("kind", ["structured", "flat"])
def test_commits_update_the_index_like_a_full_rebuild(tmp_path, monkeypatch, embedder, kind):
    rng = random.Random(7)
    root = tmp_path / "mem"
    mem = open_memory(kind, root, make_embedder(embedder))
    base = [_item(rng, i, TOPICS, "2025-01-01T00:00:00Z") for i in range(300)]
    mem.add_items([b[0] for b in base], {b[0].item_id: b[1] for b in base})
    queries = _queries(rng, 24)
    mem.retrieve(queries[0])  # builds the user index once
    ix0 = mem._indexes["user:u1"]
    builds = []
    monkeypatch.setattr(
        "pulse.memory.store_indexes.build_scope_index",
        lambda *a, **k: builds.append(a) or scope_build.build_scope_index(*a, **k),
    )
    for batch, metas in _batches(rng, 6, 25, 1000):
        mem.add_items(batch, metas)
        fresh = open_memory(kind, root, make_embedder(embedder))
        try:
            assert _results(mem, queries) == _results(fresh, queries)
        finally:
            fresh.close()
    assert [b for b in builds if b[0] is mem.store] == []  # never rebuilt: every batch was appended
    ix = mem._indexes["user:u1"]
    assert ix is ix0 and ix.n_tail == 150 and len(ix) == 450
    assert {"music", "coding/rust"} <= set(ix.topic_names)
    superseded = [it for it in ix.items if it.valid_to]
    assert superseded and all(ix.vt[ix.pos[it.item_id]] < np.inf for it in superseded)
    mem.close()


def test_compaction_keeps_results_and_resorts_the_tail(tmp_path, monkeypatch):
    monkeypatch.setattr(scope_index, "COMPACT_MIN_TAIL", 30)
    monkeypatch.setattr(scope_index, "COMPACT_FRACTION", 0.0)
    # each compaction completes in the commit that starts it: with time-budgeted steps, whether one
    # finished before the last batch depended on the machine's speed (test_compaction.py covers steps)
    monkeypatch.setattr(scope_index, "COMPACT_STEP_S", None)
    rng = random.Random(3)
    root = tmp_path / "mem"
    mem = open_memory("structured", root, make_embedder("hash"))
    base = [_item(rng, i, TOPICS, "2025-01-01T00:00:00Z") for i in range(120)]
    mem.add_items([b[0] for b in base], {b[0].item_id: b[1] for b in base})
    queries = _queries(rng, 16)
    mem.retrieve(queries[0])
    for batch, metas in _batches(rng, 4, 20, 1000):
        mem.add_items(batch, metas)
    mem.advance_compactions()  # nothing pending: a no-op
    ix = mem._indexes["user:u1"]
    assert ix.n_tail <= 30 and len(ix) == 200  # compacted at least once: the tail went back into the base
    assert np.all(np.diff(ix.primary[: ix.n_base]) >= 0)  # the base is sorted by primary Topic again
    fresh = open_memory("structured", root, make_embedder("hash"))
    assert _results(mem, queries) == _results(fresh, queries)
    fresh.close()
    mem.close()


def test_another_connections_commit_is_caught_up_not_rebuilt(tmp_path):
    root = tmp_path / "mem"
    reader = open_memory("structured", root, make_embedder("hash"))
    writer = open_memory("structured", root, make_embedder("hash"))
    writer.add_items(
        [
            pref(
                "a1",
                "I use Zotero for references",
                slot="reference_manager",
                value="Zotero",
                topic="writing",
                entities=("Zotero",),
            )
        ]
    )
    q = RetrievalQuery("u1", subgoal="reference manager Zotero", entities=("Zotero",), k=4)
    assert [s.item.item_id for s in reader.retrieve(q)] == ["a1"]
    ix = reader._indexes["user:u1"]
    writer.add_items(
        [
            pref(
                "a2",
                "I switched to Mendeley for references",
                slot="reference_manager",
                value="Mendeley",
                topic="writing",
                entities=("Zotero",),
                supersedes="a1",
                valid_from="2025-02-01T00:00:00Z",
            )
        ]
    )
    got = [s.item.item_id for s in reader.retrieve(q)]
    assert got[0] == "a2" and "a1" not in got  # the revision is seen, and a1 is no longer current
    assert reader._indexes["user:u1"] is ix and ix.n_tail == 1
    reader.close()
    writer.close()


def test_bm25_postings_score_like_bm25s_after_appends():
    bm25s = pytest.importorskip("bm25s")
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(40)]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 10))) for _ in range(200)]
    ix = BM25Index(texts[:50])
    ix.add(texts[50:120])
    ix.add(texts[120:])
    corpus = [tokenize(t) or ["_empty_"] for t in texts]
    ids: dict[str, int] = {}
    tok = [[ids.setdefault(t, len(ids)) for t in d] for d in corpus]
    ref = bm25s.BM25(k1=1.5, b=0.75)
    ref.index(bm25s.tokenization.Tokenized(tok, ids), show_progress=False)
    for _ in range(30):
        q = [rng.choice(vocab) for _ in range(rng.randint(1, 4))]
        want = np.asarray(ref.get_scores([ids[t] for t in q if t in ids]), np.float32)
        want = want / want.max() if want.max() > 0 else want
        assert np.allclose(ix.scores(q), want, atol=1e-5)


_WORKER = textwrap.dedent("""
    import random, sys
    from pulse.core.records import Event, MemoryItem, Provenance
    from pulse.memory import RetrievalQuery, open_memory
    from pulse.memory.interface import WriteCandidate
    root, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mem = open_memory("structured", root, "hash", auto_create_scopes=True)
    for i in range(n):
        cid = f"{tag}-{i}"
        t = f"2025-{1 + i // 28:02d}-{1 + i % 28:02d}T00:00:0{tag[-1]}Z"
        conv = mem.conversation("shared", "proj", cid, extract=False)
        rng = random.Random(cid)
        texts = [
            " ".join(rng.choice("ab cd ef gh ij kl mn op qr st uv wx".split()) for _ in range(6))
            + f" ({cid}/{j})"
            for j in range(3)
        ]
        ev = Event("message", 0, time=t, text=" ".join(texts), role="user", event_id=f"{cid}-e")
        conv.observe(ev)
        for j, text in enumerate(texts):
            slot = f"{tag}-chain" if j == 2 else ""
            conv.add_candidate(
                WriteCandidate(
                    MemoryItem(
                        f"{cid}-f{j}", "preference", "user:shared", text, slot=slot,
                        value=cid if slot else "", topic="concurrency",
                        provenance=Provenance("user_statement", ev.event_id, text),
                    ),
                    source_event=ev,
                )
            )
        conv.commit()
        mem.retrieve(RetrievalQuery("shared", subgoal=texts[0], k=3))  # reads while others write
    ix = mem.index("user:shared")
    print(len(ix), ix.n_tail)
""")


def test_concurrent_writers_on_one_root_lose_nothing(tmp_path):
    harness = kill_harness()

    root = tmp_path / "mem"
    open_memory("structured", root, "hash", auto_create_scopes=True).close()
    n, tags = 12, ["w1", "w2", "w3"]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(root), tag, str(n)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in tags
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    report = harness.KillReport()
    done = {f"{t}-{i}" for t in tags for i in range(n)}
    harness.verify(root, done, report)
    assert (
        report.integrity == "ok" and not report.lost and not report.half_applied and not report.chain_errors
    )
    assert report.conversations_in_store == len(done)
    # the last writer to finish saw every record through catch-up alone
    total = len(done) * harness.FACTS_PER_CONVERSATION
    assert max(int(out.split()[0]) for out, _ in outs) == total


def test_write_time_lookups_probe_nearest_topics_above_the_exact_scan_size(tmp_path, monkeypatch):
    """Above EXACT_SCAN_MAX, Topic placement and near-duplicate checks scan the nearest Topics'
    facts only; they still find a near-identical sentence and place a fact by its nearest fact."""
    monkeypatch.setattr(scope_index, "EXACT_SCAN_MAX", 50)
    monkeypatch.setattr(scope_index, "PROBE_TOPICS", 2)
    rng = random.Random(11)
    mem = open_memory("structured", tmp_path / "mem", make_embedder("hash"))
    base = [_item(rng, i, TOPICS, "2025-01-01T00:00:00Z")[0] for i in range(200)]
    base = [MemoryItem(**{**b.__dict__, "slot": "", "value": ""}) for b in base]
    mem.add_items(base)
    ix = mem.index("user:u1")
    target = base[17]
    vec = mem.embed_cached([target.text])
    from pulse.memory.store import text_hash

    v = vec[text_hash(target.text)]
    probed = ix.probe(v)
    assert 0 < len(probed) < len(ix) and ix.pos[target.item_id] in probed.tolist()
    twin = MemoryItem(**{**target.__dict__, "item_id": "twin", "topic": ""})
    assert mem.near_duplicate(twin, ItemMeta(), v) == target.item_id
    assert mem.infer_topic(twin, v) == target.topic
    mem.close()


def test_repeated_queries_are_encoded_once(tmp_path):
    mem = open_memory("structured", tmp_path / "mem", make_embedder("hash"))
    mem.add_items([pref("a1", "I use Zotero for references", topic="writing", entities=("Zotero",))])
    calls = []
    encode = mem.embedder.encode_query
    mem.embedder.encode_query = lambda text: calls.append(text) or encode(text)
    q = RetrievalQuery("u1", subgoal="reference manager", entities=("Zotero",), k=3)
    first = mem.retrieve(q)
    for _ in range(4):
        assert mem.retrieve(q) == first
    assert len(calls) == 1 and mem.query_cache_hits == 4
    mem.query_cache_size = 0  # off: every retrieval encodes again
    mem._qcache.clear()
    mem.retrieve(q), mem.retrieve(q)
    assert len(calls) == 3
    mem.close()


def test_index_cache_keeps_the_scopes_in_use(tmp_path):
    mem = open_memory("structured", tmp_path / "mem", make_embedder("hash"))
    mem.index_cache_size = 2
    for u in ("u1", "u2", "u3"):
        mem.add_items([pref(f"{u}-a", f"I like tea number {u}", user=u, topic="food")])
    q = lambda u: RetrievalQuery(u, subgoal="tea", k=2)  # noqa: E731
    assert [s.item.item_id for s in mem.retrieve(q("u1"))] == ["u1-a"]
    mem.retrieve(q("u2"))
    mem.retrieve(q("u1"))  # u1 used again: u2 is now the least recent
    mem.retrieve(q("u3"))
    assert list(mem._indexes) == ["user:u1", "user:u3"]
    assert [s.item.item_id for s in mem.retrieve(q("u2"))] == ["u2-a"]  # rebuilt on demand
    mem.close()
