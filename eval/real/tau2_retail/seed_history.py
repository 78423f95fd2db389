"""`benchmark.seed_history=retail_db` (non-standard): a τ² retail customer's past as sessions rendered
from the retail database, dated before the task: who they are (name, e-mail, zip), their address, the
payment methods on file, and one session per earlier order (its items, where it shipped, how it was
paid, its status)."""

from __future__ import annotations

from pathlib import Path

from eval.benchmark import BenchmarkDataError
from eval.real.tau2_retail.db import load_db


def retail_db_history(user_id: str, customer: str, db_path: Path):
    """The seed history (`eval.methods.seed.SeedHistory`) of chain `user_id` for retail customer
    `customer` of the database at `db_path`; BenchmarkDataError when the database has no such user."""
    from eval.methods.seed import SeedHistory
    from eval.suites.schema import SeedSession, SeedTurn

    db = load_db(db_path)
    u = db["users"].get(customer)
    if u is None:
        raise BenchmarkDataError(f"{db_path}: users[{customer!r}] missing (seed history of {user_id})")
    name, a = u["name"], u["address"]
    addr = f"{a['address1']}, {a.get('address2') or ''}, {a['city']}, {a['state']} {a['zip']}".replace(
        ", ,", ","
    )
    ack = SeedTurn("assistant", "Thanks, noted.")
    sessions = [
        SeedSession(
            "2024-01-02T10:00:00",
            f"user:{user_id}",
            (
                SeedTurn(
                    "user",
                    f"Hi, I'm {name['first_name']} {name['last_name']}. "
                    f"My email is {u['email']} and my zip code is {a['zip']}.",
                ),
                ack,
            ),
        ),
        SeedSession(
            "2024-01-03T10:00:00", f"user:{user_id}", (SeedTurn("user", f"My address is {addr}."), ack)
        ),
        SeedSession(
            "2024-01-04T10:00:00",
            f"user:{user_id}",
            (
                SeedTurn(
                    "user",
                    "The payment methods on my account are "
                    + "; ".join(
                        f"{pid} ({pm['source'].replace('_', ' ')}"
                        + (f", {pm['brand']} ending {pm['last_four']}" if pm.get("last_four") else "")
                        + ")"
                        for pid, pm in u["payment_methods"].items()
                    )
                    + ".",
                ),
                ack,
            ),
        ),
    ]
    for i, oid in enumerate(u.get("orders") or []):
        o = db["orders"].get(oid)
        if o is None:
            continue
        items = ", ".join(f"{it['name']} (item {it['item_id']})" for it in o["items"])
        pays = ", ".join(p.get("payment_method_id", "") for p in o.get("payment_history") or [])
        sessions.append(
            SeedSession(
                f"2024-02-{1 + min(i, 27):02d}T12:00:00",
                f"user:{user_id}",
                (
                    SeedTurn("user", f"I ordered {items} as order {oid}."),
                    SeedTurn(
                        "assistant",
                        f"Order {oid} is {o['status']}; it ships to {o['address']['address1']}, "
                        f"{o['address']['city']}" + (f" and was paid with {pays}" if pays else "") + ".",
                    ),
                ),
            )
        )
    return SeedHistory(user_id, tuple(sessions))
