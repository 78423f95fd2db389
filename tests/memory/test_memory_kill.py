"""SIGKILL in the middle of commits: no committed conversation lost, none half-applied (20 kills;
`.venv/bin/python bench/bench_memory_kill.py` runs the long version, 200 kills)."""

from __future__ import annotations

from memory_helpers import kill_harness


def test_sigkill_mid_commit_loses_nothing(tmp_path):
    report = kill_harness().run_kills(tmp_path / "kill", kills=20, max_delay_s=0.06, seed=1)
    assert report.kills == 20
    assert report.lost == [] and report.half_applied == [] and report.chain_errors == []
    assert report.integrity == "ok"
    assert report.conversations_committed > 0 and report.killed_mid_commit > 0
