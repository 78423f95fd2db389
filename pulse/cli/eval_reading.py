"""`pulse eval-reading` (= `python -m pulse.cli.eval_reading`): per-field precision and recall of a
reader (pulse/reading/) on the annotated statements (eval/reading/), configs/eval_reading.yaml.

    pulse eval-reading                                   # offline reader, printed
    pulse eval-reading out=results/reading/offline       # + reading.json / reading.md
"""

from __future__ import annotations

from pulse.cli.support import hydra_entry


def _run(cfg) -> dict:
    from eval.reading.config import EvalReadingConfig
    from eval.reading.run import evaluate, table, write
    from pulse.config.schema import to_typed

    typed = to_typed(cfg, EvalReadingConfig)
    result = evaluate(typed)
    print(table(result))
    if typed.out:
        write(result, typed.out)
        print(f"pulse eval-reading: wrote {typed.out}/reading.json and reading.md")
    return result


main = hydra_entry("eval-reading", _run)

if __name__ == "__main__":
    main()
