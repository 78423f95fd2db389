"""Graph retrieval: Topic location, expansion along subtopics / entities / links, evidence selection."""

from __future__ import annotations

from memory_helpers import call, pref

from pulse.core.records import MemoryItem, Provenance
from pulse.memory import ItemMeta, RetrievalQuery, Workflow, WorkflowStep, state_slot

WORLD = [
    pref("code-ex", "Include runnable code examples in explanations", topic="coding"),
    pref("py", "Uses Python 3.11 for all scripts", topic="coding/python", entities=("Python",)),
    pref(
        "tests",
        "Runs pytest with -q before committing",
        topic="coding/testing",
        entities=("pytest",),
        kind="habit",
    ),
    pref(
        "alice",
        "Alice is the user's sister and loves hiking",
        topic="family",
        entities=("Alice",),
        kind="attribute",
    ),
    pref("gift", "Buys gifts for Alice from outdoor shops", topic="shopping/gifts", entities=("Alice",)),
    pref("size", "I prefer 32x32 icons", slot="size", value="32x32", topic="design/icons"),
    pref("tone", "Keep blog posts informal", topic="writing/blog"),
    pref("hotel", "Prefers hotels near the old town", topic="travel", conditions="city trips"),
]
META = {"code-ex": ItemMeta(links=("writing",))}


def ids(hits):
    return [h.item.item_id for h in hits]


def test_cross_topic_link_is_found(mem):
    mem.add_items(WORLD, META)
    hits = mem.retrieve(RetrievalQuery("u1", subgoal="writing a tutorial"))
    assert "code-ex" in ids(hits)
    reason = next(h.reason for h in hits if h.item.item_id == "code-ex")
    assert "cross-topic link from 'coding'" in reason


def test_entity_layer_spans_topics(mem):
    mem.add_items(WORLD, META)
    hits = mem.retrieve(RetrievalQuery("u1", subgoal="buy a birthday present", entities=("Alice",)))
    assert {"gift", "alice"} <= set(ids(hits))
    assert all("entity 'Alice'" in h.reason for h in hits if h.item.item_id in ("gift", "alice"))


def test_subtopic_expansion(mem):
    mem.add_items(WORLD, META)
    hits = mem.retrieve(RetrievalQuery("u1", subgoal="set up coding environment"))
    assert {"code-ex", "py", "tests"} <= set(ids(hits))
    assert any("subtopic of 'coding'" in h.reason for h in hits)


def test_candidate_call_arguments_reach_slots(mem):
    mem.add_items(WORLD, META)
    hits = mem.retrieve(RetrievalQuery("u1", candidate_call=call("render_icon", size="64x64")))
    assert ids(hits)[0] == "size"
    assert "slot 'size' is an argument of render_icon" in hits[0].reason


def test_information_gain_skips_delivered(mem):
    mem.add_items(WORLD, META)
    q = RetrievalQuery("u1", subgoal="buy a present", entities=("Alice",))
    first = ids(mem.retrieve(q))
    again = mem.retrieve(
        RetrievalQuery("u1", subgoal="buy a present", entities=("Alice",), delivered=("gift",))
    )
    assert "gift" in first and "gift" not in ids(again)
    # nothing else qualifies -> the delivered item may come back, marked as such
    only = mem.retrieve(
        RetrievalQuery("u1", candidate_call=call("render_icon", size="32x32"), delivered=("size",), k=1)
    )
    assert ids(only) == ["size"] and "already delivered" in only[0].reason


def test_delivered_fact_the_call_contradicts_counts_as_new(mem):
    """A candidate call that sets a delivered slot to another value shows the agent did not take the
    fact up: the fact is evidence again (for the gate), even when fresh items also qualify."""
    mem.add_items(
        WORLD
        + [pref("icons-style", "Icons use a flat style", topic="design/icons", slot="style", value="flat")],
        META,
    )
    q = dict(candidate_call=call("render_icon", size="8x8", style="flat"), delivered=("size",))
    hits = mem.retrieve(RetrievalQuery("u1", **q))
    assert "size" in ids(hits) and "icons-style" in ids(hits)
    size = next(h for h in hits if h.item.item_id == "size")
    assert "already delivered" not in size.reason and "sets another value" in size.reason
    # the same delivered fact is not repeated when the call agrees with it and something new qualifies
    agree = mem.retrieve(
        RetrievalQuery(
            "u1", candidate_call=call("render_icon", size="32x32", style="flat"), delivered=("size",)
        )
    )
    assert "size" not in ids(agree) and "icons-style" in ids(agree)


def test_every_result_has_a_reason_and_k_is_respected(mem):
    mem.add_items(WORLD, META)
    hits = mem.retrieve(RetrievalQuery("u1", subgoal="coding python tests", k=2))
    assert 0 < len(hits) <= 2 and all(h.reason for h in hits)


def test_irrelevant_query_returns_little(mem):
    mem.add_items(WORLD, META)
    assert mem.retrieve(RetrievalQuery("u1", subgoal="zzz qqq")) == []


def test_task_scoped_items_stay_in_their_task(mem):
    mem.add_items(
        [pref("tmp", "Use dark theme", topic="design", slot="theme", value="dark")],
        {"tmp": ItemMeta(task_id="task-1")},
    )
    q = dict(user_id="u1", candidate_call=call("set_theme", theme="light"))
    assert ids(mem.retrieve(RetrievalQuery(**q))) == []
    assert ids(mem.retrieve(RetrievalQuery(**q, task_id="task-1"))) == ["tmp"]


def test_project_workflow_and_state(mem):
    wf = Workflow(
        "release",
        "publish a release",
        conditions="python packages",
        steps=(
            WorkflowStep("build", "build_wheel", outputs=("wheel",)),
            WorkflowStep("upload", "twine_upload", inputs=("wheel",), depends_on=(0,)),
        ),
    )
    mem.add_items(
        [
            pref("u", "Prefers concise changelogs", topic="writing"),
            wf.to_item("wf1", "p1"),
            MemoryItem(
                "art1",
                "project_state",
                "project:p1",
                "report.pdf is at v2",
                slot=state_slot("artifact", "report.pdf"),
                value="v2",
                topic="artifacts",
                provenance=Provenance("tool_receipt", "r1"),
            ),
        ]
    )
    hits = mem.retrieve(RetrievalQuery("u1", "p1", candidate_call=call("twine_upload", file="dist/x.whl")))
    assert ids(hits)[0] == "wf1" and "uses the candidate tool 'twine_upload'" in hits[0].reason
    hits = mem.retrieve(RetrievalQuery("u1", "p1", subgoal="send the report", entities=("report.pdf",)))
    assert "art1" in ids(hits)


def test_flat_retriever_is_plain_top_k(mem_factory):
    flat = mem_factory("flat")
    flat.add_items(WORLD, META)
    hits = flat.retrieve(RetrievalQuery("u1", subgoal="Alice hiking sister", k=3))
    assert hits[0].item.item_id == "alice" and len(hits) == 3
    assert all(h.reason.startswith("flat top-3") for h in hits)


def test_a_near_duplicate_sentence_adds_no_information(mem):
    """Information gain: a sentence whose dense vector matches an already selected one (the same
    statement recorded twice) is skipped; the next distinct fact takes its place."""
    twins = [
        pref("hike-a", "Alice loves hiking in the Alps", topic="family", entities=("Alice",)),
        pref("hike-b", "Alice loves hiking in the Alps", topic="family", entities=("Alice",)),
    ]
    mem.add_items([*WORLD, *twins], META)
    got = ids(mem.retrieve(RetrievalQuery("u1", subgoal="plan a hike with Alice", entities=("Alice",))))
    assert len({"hike-a", "hike-b"} & set(got)) == 1
    assert {"alice", "gift"} <= set(got)
