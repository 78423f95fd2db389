"""The fair world (issue 16): one uptake model for every delivery, the suite's own reader, Pulse on
equal footing with the baselines, reference rows never ranked."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from eval.agents.behaviour import BehaviourParams, Reading, Uptake
from eval.agents.simulated import SimulatedAgent
from eval.suites.reader import ReadValue, ValueReader
from eval.suites.schema import ArgSpec, Checkpoint, SimTask, StepSpec, ToolSpec
from eval.suites.workspace import Workspace
from pulse.agent.gate import GateDecision
from pulse.agent.runtime import AgentStats, Delivery
from pulse.core.records import Decision, MemoryItem, Provenance

VOCAB = {
    "seat": {"aisle": ("a seat by the corridor", "aisle seat"), "window": ("window seat",)},
    "cabin": {"economy": ("coach",), "business": ("business class",)},
}


# -- the reader ------------------------------------------------------------------------------------
def test_reader_synonyms_withdrawals_dates_and_conditions():
    r = ValueReader(VOCAB, {"client_trip": ("client trip",)})
    assert [
        (v.slot, v.value) for v in r.read("I prefer a seat by the corridor instead of a window seat.")
    ] == [("seat", "aisle")]
    got = r.read("2024-03-02: used to fly coach, now business class")
    assert [(v.slot, v.value, v.time) for v in got] == [("cabin", "business", "2024-03-02")]
    assert r.read("- [w1] prefers seat aisle (since 2024-05-01)")[0].time == "2024-05-01"
    assert r.read("On a client trip I fly business class.")[0].condition == "client_trip"
    assert r.read("Prefers window (switched from aisle).")[0].value == "window"
    assert r.read("I no longer want a window seat.") == ()


def test_reader_leaves_a_form_two_slots_share_unread_unless_the_slot_is_named():
    r = ValueReader({"tone": {"formal": ("formal",)}, "dress": {"formal": ("formal",)}})
    assert r.read("Keep it formal.") == () and r.mention_counts("Keep it formal.") == (1, 0)
    assert [(v.slot, v.value) for v in r.read("The tone should be formal.")] == [("tone", "formal")]


# -- the uptake model ------------------------------------------------------------------------------
def rv(slot, value, time="", cond=""):
    return ReadValue(slot, value, time, cond, 1)


def rate(fn, n=4000):
    return sum(fn(i) for i in range(n)) / n


def test_influence_decays_with_distance_and_load_and_out_of_context():
    u = Uptake(BehaviourParams(), context=("client_trip",))
    fresh, old = Reading(5, rv("seat", "aisle")), Reading(0, rv("seat", "aisle"))
    assert u.influence(fresh, 5, 0) == pytest.approx(0.9)
    assert u.influence(old, 5, 0) < u.influence(fresh, 5, 0)
    assert u.influence(fresh, 5, 3000) == pytest.approx(0.9 / 2)
    assert u.influence(Reading(5, rv("seat", "aisle", cond="personal")), 5, 0) == pytest.approx(0.9 * 0.3)
    assert u.influence(Reading(5, rv("seat", "aisle", cond="client_trip")), 5, 0) == pytest.approx(0.9)


def test_a_delivery_contradicting_the_user_wins_at_the_one_override_rate():
    p = BehaviourParams()
    u = Uptake(p)
    reads = [Reading(1, rv("seat", "window"))]
    won = rate(
        lambda i: u.fill([("seat", "middle")], {"seat": "aisle"}, reads, 1, 0, (i,))["seat"] == "window"
    )
    # the stated value is used (p_follow_explicit) and the delivery overrides it, or it is missed (copy
    # error) and the delivery is taken instead
    expect = p.p_use_delivered * (p.p_follow_explicit * p.p_override_stated + (1 - p.p_follow_explicit))
    assert won == pytest.approx(expect, abs=0.025)
    taken = rate(lambda i: u.fill([("seat", "middle")], {}, reads, 1, 0, (i,))["seat"] == "window")
    assert taken == pytest.approx(p.p_use_delivered, abs=0.02)


def test_the_newest_dated_value_is_taken_with_p_latest_on_conflict():
    p = BehaviourParams(p_use_delivered=1.0)
    reads = [Reading(1, rv("seat", "aisle", "2024-06-01")), Reading(1, rv("seat", "window", "2023-01-01"))]
    newest = rate(lambda i: Uptake(p).fill([("seat", "middle")], {}, reads, 1, 0, (i,))["seat"] == "aisle")
    assert newest == pytest.approx(p.p_latest_on_conflict, abs=0.02)


# -- one model for supplements and interventions ---------------------------------------------------
TOOL = ToolSpec("book", "travel", "", {"seat": ["middle", "aisle", "window"]})
ITEM = MemoryItem(
    "m1",
    "preference",
    "user:u1",
    "For flights, my preferred seat is aisle.",
    "seat",
    "aisle",
    provenance=Provenance("user_statement"),
    valid_from="2024-01-01",
)


def task(i: int) -> SimTask:
    step = StepSpec(
        "s0",
        "book",
        f"trip{i}",
        "book the flight",
        (ArgSpec("seat", "aisle", "preference", "middle"),),
        "early",
    )
    return SimTask(
        f"t{i}",
        "u1",
        "",
        "travel",
        1,
        "2025-01-01",
        2,
        "Book my flight.",
        {},
        (step,),
        (Checkpoint("c0", f"trip{i}", "seat", "aisle", "early", "preference"),),
    )


class Supplementer:
    """Delivers the item before the first decision (a supplement the agent takes at decision 1)."""

    def __init__(self):
        self.stats, self.sent = AgentStats(), False

    def start(self, request):
        return None

    def observe(self, event):
        pass

    def decide_call(self, event):
        return None

    def take_supplements(self, wait=False):
        if self.sent:
            return []
        self.sent = True
        return [Delivery((ITEM,), "- [m1] For flights, my preferred seat is aisle.", 0, "supplement")]

    def end(self, completed=True):
        return self.stats


class Intervener(Supplementer):
    """Holds the first call whose seat is not aisle, with the same text as evidence."""

    def take_supplements(self, wait=False):
        return []

    def decide_call(self, event):
        if event.args.get("seat") != "aisle" and not self.sent:
            self.sent = True
            return GateDecision(
                Decision("intervene", ("m1",)), (ITEM,), "- [m1] For flights, my preferred seat is aisle."
            )
        return None


def test_an_intervention_fixes_a_call_no_more_often_than_a_fresh_supplement():
    """An intervention's only extra power is the re-plan: given the call was wrong, its evidence is
    taken at the supplement's rate (the same uptake model). Held calls here always re-plan (the
    hold's other outcomes, giving up, asking, repeating, are tests/eval/test_world_rules.py's)."""
    agent = SimulatedAgent(BehaviourParams(p_hold_abandon=0.0, p_hold_ask_user=0.0, p_hold_repeat=0.0))
    sup = inter = 0
    n = 600
    for i in range(n):
        env = Workspace([TOOL])
        agent.run(task(i), env, Supplementer(), seed=0)
        sup += env.state[f"trip{i}"]["seat"] == "aisle"
        env = Workspace([TOOL])
        agent.run(task(i), env, Intervener(), seed=0)
        inter += env.state[f"trip{i}"]["seat"] == "aisle"
    assert sup / n == pytest.approx(0.9, abs=0.04)
    assert inter / n == pytest.approx(0.9, abs=0.04)


# -- equal footing ---------------------------------------------------------------------------------
def test_pulse_builds_its_memory_from_the_rendered_sessions_through_its_write_path():
    from eval.config import EmbedderConfig
    from eval.memory_backends import build_embedder
    from eval.methods.pulse_method import PulseMethod
    from eval.methods.seed import ChainSeed, SeedHistory
    from eval.suites.schema import SeedSession, SeedTurn

    tools = (ToolSpec("make_plot", "plots", "", {"palette": ["viridis", "colorblind"]}),)
    sessions = (
        SeedSession(
            "2024-02-01T10:00:00",
            "user:u1",
            (
                SeedTurn("user", "For plots, my preferred palette is colorblind."),
                SeedTurn("assistant", "Noted."),
            ),
        ),
    )
    with tempfile.TemporaryDirectory() as d:
        mem = PulseMethod("pulse", "structured", None).open_chain(
            ChainSeed(
                "u1",
                ("",),
                SeedHistory("u1", sessions),
                Path(d),
                build_embedder(EmbedderConfig()),
                tools,
            )
        )
        try:
            items = [m for m, _, _ in mem.store.scope_items("user:u1")]
            assert [(m.slot, m.value) for m in items if m.slot == "palette"] == [("palette", "colorblind")]
        finally:
            mem.close()


# -- reference rows --------------------------------------------------------------------------------
def test_reference_rows_are_labelled_and_never_marked_best():
    from eval.table_format import row_label
    from eval.tables import mark_best

    s = [{"simulated": True, "seed": 0}]
    rows = [
        [row_label("pulse_rule", [s]), "–", "99.0"],
        [row_label("pulse_supplement_all", [s]), "–", "98.0"],
        [row_label("mem0", [s]), "–", "70.0"],
        [row_label("pma", [s]), "–", "80.0"],
        [row_label("gold_facts", [s]), "–", "100.0"],
        [row_label("pulse_flat-rule", [s]), "–", "97.0"],
    ]
    mark_best(rows, {2: True})
    assert rows[0][0].startswith("gold rule over Pulse's memory") and rows[1][0].startswith("blind:")
    assert rows[4][0].startswith("upper bound") and "in place of the checkpoint" in rows[5][0]
    assert rows[0][2] == "99.0" and rows[1][2] == "98.0" and rows[4][2] == "100.0" and rows[5][2] == "97.0"
    assert rows[3][2] == "**80.0**" and rows[2][2] == "_70.0_"


def test_blind_policies_supplement_everything_or_intervene_on_every_call():
    from pulse.agent.blind_policies import BlindPolicy
    from pulse.core.policy_io import PolicyInput
    from pulse.core.records import Event

    inp = PolicyInput((Event("candidate_call", 1, tool="book", args={"seat": "middle"}),), (ITEM,))
    msg = PolicyInput((Event("message", 1, role="agent", text="plan"),), (ITEM,))
    assert BlindPolicy("supplement_all").decide_batch([inp])[0].decision.action == "supplement"
    assert BlindPolicy("intervene_all").decide_batch([inp])[0].decision.action == "intervene"
    assert BlindPolicy("intervene_all").decide_batch([msg])[0].decision.action == "silent"


def test_behaviour_knobs_are_typed_and_a_typo_is_refused():
    from eval.config import AgentConfig
    from pulse.config.schema import ConfigError, to_typed

    assert to_typed({"behaviour": {"decay_per_step": 0.3}}, AgentConfig).behaviour.decay_per_step == 0.3
    with pytest.raises(ConfigError, match="decay_per_stp"):
        to_typed({"behaviour": {"decay_per_stp": 0.3}}, AgentConfig)
    with pytest.raises(ConfigError, match="p_use_delivered"):
        to_typed({"behaviour": {"p_use_delivered": 1.5}}, AgentConfig)


def test_sensitivity_ranks_correlation_and_flips():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "sens", Path(__file__).parents[2] / "scripts" / "sensitivity.py"
    )
    sens = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sens)
    sens.check_grid()  # every behaviour knob is swept, and only those
    assert sens.ranks({"a": 3, "b": 1, "c": 3}) == {"a": 1.5, "c": 1.5, "b": 3}
    assert sens.spearman({"a": 3, "b": 2, "c": 1}, {"a": 30, "b": 20, "c": 10}) == pytest.approx(1.0)
    assert sens.spearman({"a": 3, "b": 2, "c": 1}, {"a": 10, "b": 20, "c": 30}) == pytest.approx(-1.0)
    data = {
        ("default", "x", "a"): {0: 0.9},
        ("default", "x", "b"): {0: 0.5},
        ("default", "x", "pulse_rule"): {0: 1.0},
        ("decay_per_step=0.0", "x", "a"): {0: 0.4},
        ("decay_per_step=0.0", "x", "b"): {0: 0.6},
    }
    res = sens.analyse(data, ["x"])
    flip = next(r for r in res["settings"] if r["setting"] == "decay_per_step=0.0")
    assert flip["flips_vs_default"] == ["a vs b"] and "pulse_rule" not in flip["ranking"]


def test_gold_rule_supplements_a_plan_that_announces_a_value_memory_contradicts():
    from pulse.core.gold import gold_decision
    from pulse.core.records import Event

    pref = MemoryItem(
        "m1", "preference", "user:u1", "prefers seat aisle", "seat", "aisle", valid_from="2024-01-01"
    )
    plan = Event(
        "message", 2, role="agent", text="Next I will book with seat window.", args={"seat": "window"}
    )
    req = Event("request", 1, role="user", text="Book my flight.")
    assert gold_decision((req, plan), (pref,)) == Decision("supplement", ("m1",))
    stated = Event("request", 1, role="user", text="Book a window seat.", args={"seat": "window"})
    assert gold_decision((stated, plan), (pref,)).action == "silent"  # the user chose it: memory yields
    agrees = Event(
        "message", 2, role="agent", text="Next I will book with seat aisle.", args={"seat": "aisle"}
    )
    assert gold_decision((req, agrees), (pref,)).action == "silent"


@pytest.mark.parametrize(
    "benchmark,key",
    [
        ("pibench_sim", {"split": "test"}),
        ("independent_sim", {"seed_history": "synthetic"}),
        ("mcp_persona_sim", {"chain_users": True}),
    ],
)
def test_a_knob_of_another_benchmark_is_refused_by_name(benchmark, key):
    """The YAML of a suite does not declare another benchmark's key (hydra refuses it); one added
    with `+benchmark.<key>=` or set from Python is refused by the benchmark's own Options."""
    from eval.config import BenchmarkConfig
    from eval.registry import BENCHMARKS
    from pulse.config.schema import ConfigError

    with pytest.raises(ConfigError, match=f"benchmark.{next(iter(key))}: not an option of {benchmark}"):
        BENCHMARKS.get(benchmark)(BenchmarkConfig(name=benchmark, **key))
