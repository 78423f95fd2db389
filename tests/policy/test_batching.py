"""BatchingPolicy: concurrent chains' decisions go out as one call of the wrapped policy, each caller
gets its own outputs, a failure reaches every caller of its batch."""

from __future__ import annotations

import threading

import pytest

from pulse.policy.batching import BatchingPolicy


class Echo:
    name = "echo"

    def __init__(self, fail_on=None):
        self.calls, self.fail_on = [], fail_on

    def decide_batch(self, inputs):
        self.calls.append(list(inputs))
        if self.fail_on is not None and self.fail_on in inputs:
            raise RuntimeError("boom")
        return [f"out:{x}" for x in inputs]


def run_chains(policy, n, per_chain):
    results, errors = {}, {}
    started = threading.Barrier(n)

    def chain(c):
        with policy.chain():
            started.wait()  # every chain is live before the first decision (as in the harness's pool)
            for k in range(per_chain):
                try:
                    results[(c, k)] = policy.decide_batch([f"{c}-{k}"])
                except RuntimeError as e:
                    errors[(c, k)] = str(e)

    threads = [threading.Thread(target=chain, args=(c,)) for c in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results, errors


def test_concurrent_chains_share_forward_passes_and_get_their_own_outputs():
    inner = Echo()
    policy = BatchingPolicy(inner, max_batch=64, max_wait_s=0.5)
    results, errors = run_chains(policy, n=6, per_chain=5)
    assert not errors and len(results) == 30
    assert all(out == [f"out:{c}-{k}"] for (c, k), out in results.items())
    assert sum(len(c) for c in inner.calls) == 30
    assert len(inner.calls) < 30 and max(len(c) for c in inner.calls) > 1  # batched
    assert policy.forward_calls == len(inner.calls) and policy.inputs == 30


def test_one_chain_is_never_held_back_waiting_for_others():
    inner = Echo()
    policy = BatchingPolicy(inner, max_wait_s=5.0)
    with policy.chain():
        assert policy.decide_batch(["a", "b"]) == ["out:a", "out:b"]  # the only live chain: sent at once
    assert inner.calls == [["a", "b"]]


def test_a_failure_reaches_every_caller_of_its_batch_and_later_calls_work():
    inner = Echo(fail_on="1-0")
    policy = BatchingPolicy(inner, max_wait_s=0.5)
    results, errors = run_chains(policy, n=3, per_chain=2)
    assert errors and all(e == "boom" for e in errors.values())
    assert (1, 0) in errors and len(results) + len(errors) == 6
    with pytest.raises(RuntimeError):
        policy.decide_batch(["1-0"])
