"""scripts/reading_probes.py: its WordNet reader parses the database's own line format (CRLF copies
too), so the probe's counts come from the synsets, glosses and hypernyms the files hold."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _probes():
    spec = importlib.util.spec_from_file_location("reading_probes", ROOT / "scripts" / "reading_probes.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_wordnet_files_are_read_line_by_line(tmp_path):
    # two noun synsets in WordNet 3.0's format: "taco" whose hypernym is "dish"; CRLF line ends
    data = (
        "  1 license header line\r\n"
        "00000100 13 n 01 dish 0 000 | a particular item of prepared food\r\n"
        "00000200 13 n 01 taco 0 001 @ 00000100 n 0000 | a tortilla folded around a filling\r\n"
    )
    index = "  1 license header line\r\ntaco n 1 1 @ 1 0 00000200  \r\ndish n 1 0 1 0 00000100  \r\n"
    for pos in ("noun", "verb", "adj", "adv"):
        (tmp_path / f"data.{pos}").write_text(data if pos == "noun" else "", newline="")
        (tmp_path / f"index.{pos}").write_text(index if pos == "noun" else "", newline="")
    index_map, synsets = _probes().load_wordnet(tmp_path)
    assert index_map["taco"] == ["n00000200"]
    lemmas, hypernyms, gloss = synsets["n00000200"]
    assert lemmas == ["taco"] and hypernyms == ["n00000100"] and gloss == "a tortilla folded around a filling"
    assert synsets["n00000100"][0] == ["dish"]
