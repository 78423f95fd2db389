"""The real-model subset's runs compose as typed eval configs (a typo in its overrides would only show
after a model server is up), and its table reads run directories as they are written."""

import json

from hydra import compose, initialize_config_dir

from eval.config import EvalConfig
from eval.real.real_model_subset import BENCHES, LABEL, METHODS, P2W_TASKS, TAU2_TASKS, commands, summarise
from pulse.cli.support import CONFIG_DIR
from pulse.config.schema import to_typed


def test_every_subset_run_composes_as_a_typed_eval_config(tmp_path):
    runs = commands(
        "http://127.0.0.1:8012/v1", "m", tmp_path, tau2_base_url="http://h:1/v1", tau2_model="big"
    )
    assert [name for name, _ in runs] == [f"{b}/{m}" for b in BENCHES for m in METHODS]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        for name, args in runs:
            cfg = to_typed(compose(config_name="eval", overrides=args), EvalConfig)
            assert LABEL in cfg.agent.model, name
            ids = P2W_TASKS if name.startswith("persona2web") else TAU2_TASKS
            assert tuple(cfg.benchmark.task_ids) == ids
            assert (cfg.benchmark.seed_history == "retail_db") == name.startswith("tau2_retail_db/")
            assert (cfg.benchmark.user_opening == "scenario") == name.startswith("tau2_retail_db/")
            assert (cfg.llm.name == "openai") == name.endswith("/mem0")  # memory-side calls on the model
            tau2 = name.startswith("tau2")
            assert cfg.agent.model.startswith("big (" if tau2 else "m (")
            assert cfg.agent.base_url == ("http://h:1/v1" if tau2 else "http://127.0.0.1:8012/v1")
            if tau2:  # the user simulator runs on the same model
                assert (cfg.benchmark.user.model, cfg.benchmark.user.base_url) == ("big", "http://h:1/v1")
            if name.endswith("/mem0"):
                assert cfg.llm.model == ("big" if tau2 else "m")
    assert len(P2W_TASKS) == 30 and len(TAU2_TASKS) == 5


def test_summary_counts_failed_tasks_and_reads_run_wall_times(tmp_path):
    d = tmp_path / "runs" / "tau2_retail_db" / "none"
    d.mkdir(parents=True)
    rows = [
        {
            "status": "ok",
            "agent_model": "m (label)@u",
            "score": 1.0,
            "seconds": 4.0,
            "supplements": 1,
            "components": {"db": 1.0},
        },
        {"status": "failed", "score": 0.0, "seconds": 9.0},
    ]
    (d / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "run_wall_s.json").write_text(json.dumps({"tau2_retail_db/none": 21}))
    [row] = summarise(tmp_path)
    assert (row["tasks"], row["failed"], row["score"]) == (2, 1, 0.5)
    assert (row["s_per_task_mean"], row["supplements"], row["run_wall_s"]) == (4.0, 1, 21)
