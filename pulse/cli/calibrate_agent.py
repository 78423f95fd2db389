"""`pulse calibrate-agent` (= `python -m pulse.cli.calibrate_agent`): probe a real model in task
states of the generated suites with memory deliveries and holds, and fit the simulated agent's
behaviour knobs from what it does (eval/calibration/, configs/calibrate_agent.yaml).

    pulse calibrate-agent gguf=/work/models/qwen2.5-coder-1.5b-instruct.gguf     # probe + fit
    pulse calibrate-agent phase=fit                                              # refit recorded probes
    pulse calibrate-agent base_url=http://127.0.0.1:8000/v1 model=Qwen/Qwen2.5-Coder-1.5B-Instruct \\
        out=results/calibration/<name> yaml=configs/agent/behaviour/calibrated_<name>.yaml
"""

from __future__ import annotations

from pulse.cli.support import hydra_entry


def _run(cfg) -> int:
    from eval.calibration.config import CalibrateConfig
    from eval.calibration.fit import run_fit
    from eval.calibration.probe import run
    from pulse.config.schema import to_typed

    typed = to_typed(cfg, CalibrateConfig)
    if typed.phase in ("probe", "all"):
        run(typed)
    if typed.phase in ("fit", "all"):
        run_fit(typed.out, typed.yaml, n_boot=typed.bootstrap)
        print(
            f"pulse calibrate-agent: wrote {typed.out}/fit.json, README.md"
            + (f", {typed.yaml}" if typed.yaml else "")
        )
    return 0


main = hydra_entry("calibrate-agent", _run)

if __name__ == "__main__":
    main()
