"""τ²-bench retail in process: tools, DB-hash scoring, gold replay through the gate, pass^k."""

from __future__ import annotations

import json

import pytest
from real_data import real_data

from eval.harness import run_eval
from eval.metrics import pass_hat_k, pass_k_over_runs, read_rows


@pytest.fixture(scope="module")
def tau2_dir():
    return real_data("tau2/retail")


def test_gold_replay_through_the_gate_with_pulse_reaches_db_reward_1_on_all_114(tmp_path, tau2_dir, eval_cfg):
    # pulse_rule: the real PulseAgent (memory store, listener, retrieval, pre-commit gate) with the rule
    # policy
    cfg = eval_cfg(tmp_path, "pulse_rule", "tau2_retail", ["agent=scripted", "agent.script=gold"])
    out = run_eval(cfg)
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 114 and all(r["status"] == "ok" for r in rows)
    assert sum(r["components"]["DB"] == 1.0 for r in rows) == 114
    labels = [
        r["score_detail"]["basis_label"] for r in rows
    ]  # no judge: 40 tasks with NL assertions + 2 [DB]-only
    assert labels.count("DB only") == 42 and labels.count("DB+NL_ASSERTION(none)") == 72
    assert (
        sum(r["retrievals"] for r in rows) >= 114
    )  # Pulse retrieved at the held calls (empty memory: silent)
    man = json.loads((out / "manifest.json").read_text())
    assert "DB only" in man["judge"] and man["agent"]["simulated"]


def test_do_nothing_scores_0_exactly_where_the_gold_actions_change_the_database(tmp_path, tau2_dir, eval_cfg):
    out = run_eval(eval_cfg(tmp_path, "none", "tau2_retail", ["agent=scripted", "agent.script=noop"]))
    rows = read_rows(out / "episodes.jsonl")
    assert len(rows) == 114
    assert all(r["score"] == (0.0 if r["score_detail"]["gold_changes_db"] else 1.0) for r in rows)
    assert sum(r["score_detail"]["gold_changes_db"] for r in rows) == 103  # 11 tasks only read
    summary = json.loads((out / "summary.json").read_text())
    assert summary["score"] == pytest.approx(11 / 114)


def test_tools_follow_tau2_checks(tau2_dir):
    from eval.real.tau2_retail.db import load_db
    from eval.real.tau2_retail.tools import RetailError, RetailTools

    t = RetailTools(load_db(tau2_dir / "db.json"))
    assert t.find_user_id_by_name_zip("yusuf", "ROSSI", "19122") == "yusuf_rossi_9620"
    assert t.calculate("(2 + 3) * 4") == "20.0"
    with pytest.raises(RetailError, match="Invalid characters"):
        t.calculate("__import__('os')")
    with pytest.raises(RetailError, match="Order not found"):
        t.get_order_details("W2378156")
    with pytest.raises(RetailError, match="Non-pending order cannot be cancelled"):
        t.cancel_pending_order("#W2378156", "no longer needed")  # delivered
    with pytest.raises(RetailError, match="missing argument"):
        t.call("get_order_details", {})
    # a refused call leaves the order as it was
    before = json.dumps(t.db["orders"]["#W2378156"], sort_keys=True)
    with pytest.raises(RetailError):
        t.call(
            "exchange_delivered_order_items",
            {
                "order_id": "#W2378156",
                "item_ids": ["1151293680"],
                "new_item_ids": [],
                "payment_method_id": "credit_card_9513926",
            },
        )
    assert json.dumps(t.db["orders"]["#W2378156"], sort_keys=True) == before


def test_premature_stop_scores_0_and_communicate_is_checked(tau2_dir):
    from eval.config import BenchmarkConfig
    from eval.episode import EpisodeOutcome
    from eval.real.tau2_retail.benchmark import load

    b = load(BenchmarkConfig(name="tau2_retail", data_dir=str(tau2_dir.parents[1]), split="test"))
    assert len(b.tasks) == 40
    task = next(t for t in b.tasks if t.data["evaluation_criteria"].get("communicate_info"))
    env = b.open_env(task.user_id)
    env.begin(task)
    for name, args in b.scripted_calls(task, "gold"):
        try:
            env(name, args)
        except Exception:
            pass
    cut = EpisodeOutcome(extra={"termination": "max_steps", "transcript": []})
    assert b.score(task, env, cut).score == 0.0
    silent = b.score(task, env, EpisodeOutcome(extra={"termination": "agent_stop", "transcript": []}))
    # retail's basis is [DB, NL_ASSERTION]: communicating is reported, not part of the reward
    assert silent.components["DB"] == 1.0 and "COMMUNICATE" not in silent.components
    assert silent.detail["communicate_met"] == 0.0 and silent.score == 1.0
    said = " ".join(map(str, task.data["evaluation_criteria"]["communicate_info"]))
    told = b.score(
        task,
        env,
        EpisodeOutcome(
            extra={"termination": "user_stop", "transcript": [{"role": "assistant", "content": said}]}
        ),
    )
    assert told.detail["communicate_met"] == 1.0


def test_pass_hat_k_is_taus():
    assert (
        pass_hat_k(4, 2, 1) == 0.5
        and pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
        and pass_hat_k(4, 4, 4) == 1.0
    )
    runs = [
        [{"task_id": "a", "status": "ok", "score": 1.0}, {"task_id": "b", "status": "ok", "score": 0.0}],
        [{"task_id": "a", "status": "ok", "score": 1.0}, {"task_id": "b", "status": "ok", "score": 1.0}],
    ]
    assert pass_k_over_runs(runs, 1) == pytest.approx(0.75) and pass_k_over_runs(runs, 2) == pytest.approx(
        0.5
    )
    with pytest.raises(ValueError):
        pass_hat_k(1, 1, 2)


def test_missing_data_is_a_one_line_error_naming_the_variable(tmp_path, eval_cfg, monkeypatch):
    from eval.real.data_dir import DataNotFound

    monkeypatch.delenv("PULSE_DATA_DIR", raising=False)
    with pytest.raises(DataNotFound, match="PULSE_DATA_DIR"):
        run_eval(eval_cfg(tmp_path, "none", "tau2_retail", ["agent=scripted"]))
    with pytest.raises(DataNotFound, match="benchmark.data_dir"):
        run_eval(
            eval_cfg(tmp_path, "none", "tau2_retail", ["agent=scripted", f"benchmark.data_dir={tmp_path}"])
        )


def test_simulated_agent_is_refused_on_a_real_benchmark(tmp_path, tau2_dir, eval_cfg):
    from pulse.config.schema import ConfigError

    with pytest.raises(ConfigError, match="agent=openai"):
        run_eval(eval_cfg(tmp_path, "none", "tau2_retail", ["benchmark.max_tasks=1"]))


def test_chained_variant_is_labelled_non_standard(tau2_dir):
    from eval.config import BenchmarkConfig
    from eval.real.tau2_retail.benchmark import load

    b = load(BenchmarkConfig(name="tau2_retail", data_dir=str(tau2_dir.parents[1]), chain_users=True))
    assert b.name == "tau2_retail-chained-nonstandard" and "non-standard" in b.nonstandard
    chains = b.chains()
    assert len(chains) < 114 and chains["yusuf_rossi_9620"][0].task_id == "tau2_retail_0"


def test_scripted_opening_variant_is_labelled_and_only_the_first_message_is_scripted(tau2_dir):
    from eval.config import BenchmarkConfig
    from eval.real.tau2_retail.benchmark import load

    class Endpoint:
        def __init__(self):
            self.seen = []

        def chat(self, messages):
            self.seen.append(messages)
            return "My email? I do not remember it."

    b = load(BenchmarkConfig(name="tau2_retail", data_dir=str(tau2_dir.parents[1]), user_opening="scenario"))
    assert b.name == "tau2_retail-scripted-opening-nonstandard" and "opening message" in b.nonstandard
    ep = Endpoint()
    b.user_endpoint = ep
    task = b.tasks[0]
    user = b.user_simulator(task)
    assert user.first_message() == task.request_text and not ep.seen  # the scenario, no model call
    transcript = [
        {"role": "assistant", "content": "Hi! How can I help you today?"},
        {"role": "user", "content": task.request_text},
        {"role": "assistant", "content": "What is your email?"},
    ]
    assert user.reply(transcript).startswith("My email") and len(ep.seen) == 1
    # the simulator reads the opening as its own turn and the agent's question as the other side's
    assert [m["role"] for m in ep.seen[0][1:]] == ["user", "assistant", "user"]
    standard = load(BenchmarkConfig(name="tau2_retail", data_dir=str(tau2_dir.parents[1])))
    assert standard.name == "tau2_retail" and standard.nonstandard == ""


def test_pass_k_cli_over_seed_runs(tmp_path):
    from eval.real.tau2_retail.pass_k import pass_k_table

    for seed, scores in ((0, [1.0, 0.0]), (1, [1.0, 1.0]), (2, [0.0, 1.0])):
        d = tmp_path / f"s{seed}"
        d.mkdir()
        (d / "episodes.jsonl").write_text(
            "".join(
                json.dumps(
                    {
                        "task_id": t,
                        "status": "ok",
                        "score": s,
                        "benchmark": "tau2_retail",
                        "method": "m",
                        "seed": seed,
                    }
                )
                + "\n"
                for t, s in zip("ab", scores)
            )
        )
    got = pass_k_table([str(tmp_path / f"s{i}") for i in range(3)])
    assert got == {"pass^1": pytest.approx(2 / 3), "pass^2": pytest.approx(1 / 3), "pass^3": 0.0}


def test_touched_entry_comparison_is_taus_full_hash_comparison_and_the_base_stays_untouched(tau2_dir):
    from eval.config import BenchmarkConfig
    from eval.real.tau2_retail.benchmark import load
    from eval.real.tau2_retail.db import db_hash, load_db
    from eval.real.tau2_retail.env import same_db
    from eval.real.tau2_retail.tools import RetailTools

    base = load_db(tau2_dir / "db.json")
    before = db_hash(base)
    b = load(BenchmarkConfig(name="tau2_retail", data_dir=str(tau2_dir.parents[1])))
    golds = [b.gold_db(t) for t in b.tasks[:12]]
    for g in golds:
        fresh = RetailTools(base)
        assert same_db(g, fresh) == (db_hash(g.db) == db_hash(fresh.db))
    assert not same_db(golds[0], golds[1]) and db_hash(golds[0].db) != db_hash(golds[1].db)
    assert db_hash(base) == before  # every change lived in a task's own copy-on-write layer
