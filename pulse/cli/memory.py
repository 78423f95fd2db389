"""`pulse memory show|export|import`: inspect and move a memory root without writing code.

    python -m pulse.cli.memory show   --root runs/mem --user u1 [--project p1] [--as-of 2025-06-01]
    python -m pulse.cli.memory export --root runs/mem --user u1 [--project p1] [--as-of T] --out snap.json
    python -m pulse.cli.memory import --root runs/mem --file snap.json
The top-level `pulse` CLI dispatches `pulse memory ...` to `main(argv)`. Reading needs no embedder
(show/export never embed); import caches vectors lazily on first retrieval. Errors print one line
naming the user / project / record / file and exit with status 2. `import` validates the whole
snapshot before it opens (or creates) the store; a bad file changes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence

from pulse.core.errors import PulseUserError, one_line
from pulse.core.records import MemoryItem, RecordError, quote_untrusted
from pulse.memory.embedders.hashing import HashEmbedder
from pulse.memory.interface import ItemMeta
from pulse.memory.project import Workflow, state_kind_of
from pulse.memory.retrieval_flat import FlatRetriever
from pulse.memory.retrieval_graph import GraphRetriever
from pulse.memory.snapshot import export_snapshot, import_snapshot, load_snapshot
from pulse.memory.store_memory import StoreMemory


def _open(root: str, create: bool = False) -> StoreMemory:
    # show/export/import never embed; the hashing embedder is only a placeholder that costs nothing
    return StoreMemory(root, HashEmbedder(), GraphRetriever(), FlatRetriever(), kind="inspect", create=create)


def _validity(item: MemoryItem) -> str:
    if item.valid_to:
        return f"[{item.valid_from or '…'} → {item.valid_to}, superseded]"
    return f"[since {item.valid_from}]" if item.valid_from else "[current]"


def _line(item: MemoryItem, meta: ItemMeta) -> str:
    slot = f" {item.slot}={item.value!r}" if item.slot and item.kind != "workflow" else ""
    extra = []
    if item.conditions:
        extra.append(f"when {item.conditions}")
    if item.entities:
        extra.append("entities " + ", ".join(item.entities))
    if meta.links:
        extra.append("links " + ", ".join(meta.links))
    if meta.task_id:
        extra.append(f"task-scoped to {meta.task_id}")
    if item.supersedes:
        extra.append(f"supersedes {item.supersedes}")
    p = item.provenance
    extra.append(f"from {p.source_kind}" + (f" {p.event_id}" if p.event_id else ""))
    if p.untrusted and p.quote.strip():
        extra.append(f"untrusted tool output {quote_untrusted(p.quote.strip(), 120)}")
    text = quote_untrusted(item.text) if p.untrusted else item.text
    return f"  {item.item_id} {item.kind}{slot} {_validity(item)}: {text}" + (
        f"  ({'; '.join(extra)})" if extra else ""
    )


def show(mem: StoreMemory, user: str, project: str, as_of: str) -> str:
    """What `pulse memory show` prints: a user's records by topic (value, validity, links, provenance;
    tool output quoted) and entities, and with a project its workflows (with their steps) and its state
    records by kind.

    Args:
        mem: the open memory root.
        user: the user id.
        project: a project id ("" = the user only).
        as_of: the information cutoff, ISO-8601 ("" = now).

    Returns:
        The report, one line per record (newline-joined).

    Raises:
        UnknownScopeError: the user or project is not in this memory root.
        ValueError: `as_of` is not ISO-8601.
    """
    pairs = mem.snapshot_with_meta(user, project, as_of)
    out = [f"memory root {mem.store.root}" + (f" as of {as_of}" if as_of else "")]
    user_pairs = [(i, m) for i, m in pairs if i.scope == f"user:{user}"]
    out.append(
        f"user {user}: {len(user_pairs)} records, {sum(1 for i, _ in user_pairs if not i.valid_to)} current"
    )
    by_topic: dict[str, list[tuple[MemoryItem, ItemMeta]]] = defaultdict(list)
    for i, m in user_pairs:
        by_topic[i.topic or "general"].append((i, m))
    for topic in sorted(by_topic):
        out.append(f" Topic {topic}")
        out.extend(_line(i, m) for i, m in by_topic[topic])
    ents = mem.store.entities(f"user:{user}")
    if ents:
        out.append(" entities: " + ", ".join(sorted(ents.values())))
    if project:
        proj = [(i, m) for i, m in pairs if i.scope == f"project:{project}"]
        out.append(f"project {project}: {len(proj)} records")
        wfs = [(i, m) for i, m in proj if i.kind == "workflow"]
        if wfs:
            out.append(" workflows")
            for i, m in wfs:
                out.append(_line(i, m))
                try:
                    wf = Workflow.from_item(i)
                    for n, s in enumerate(wf.steps):
                        dep = (
                            f" (after {', '.join(str(d + 1) for d in s.depends_on)})" if s.depends_on else ""
                        )
                        out.append(
                            f"      {n + 1}. {s.name} [{s.tool}] "
                            f"in={list(s.inputs)} out={list(s.outputs)}{dep}"
                        )
                except RecordError as e:
                    out.append(f"      (unreadable steps: {e})")
        by_state: dict[str, list[tuple[MemoryItem, ItemMeta]]] = defaultdict(list)
        for i, m in proj:
            if i.kind != "workflow":
                by_state[state_kind_of(i) or "other"].append((i, m))
        for sk in sorted(by_state):
            out.append(f" state: {sk}")
            out.extend(_line(i, m) for i, m in by_state[sk])
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pulse memory", description="Inspect, export and import Pulse memory roots."
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("show", help="print a user's Topic graph and a project's workflows and state")
    e = sub.add_parser("export", help="write a user's (+ a project's) memory to a JSON snapshot")
    for sp in (s, e):
        sp.add_argument("--root", required=True, help="memory root directory (holds memory.sqlite)")
        sp.add_argument("--user", required=True, help="user id")
        sp.add_argument("--project", default="", help="project id (optional)")
        sp.add_argument("--as-of", default="", help="information cutoff, ISO-8601 (default: now)")
    e.add_argument("--out", required=True, help="snapshot file to write")
    i = sub.add_parser("import", help="load a JSON snapshot into a memory root (creates it if missing)")
    i.add_argument("--root", required=True)
    i.add_argument("--file", required=True)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """`pulse memory show|export|import ...` (the module docstring): inspect or move a memory root.

    Args:
        argv: the arguments after `pulse memory` (None: `sys.argv[1:]`).

    Returns:
        0 on success; 2, with one line on stderr naming the user, project, record or file, for an
        unknown user or project, a missing or corrupted store, an invalid snapshot, a bad `--as-of`,
        or a file that cannot be written. `import` validates the whole snapshot before it opens (or
        creates) the store, so a bad file changes nothing.

    Raises:
        SystemExit: from argparse, for bad arguments (2) or `--help` (0).
    """
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    try:
        if args.cmd == "import":
            snap = load_snapshot(args.file)  # the whole file is valid before the store is opened or created
            with _open(args.root, create=True) as mem:
                snap = import_snapshot(mem, args.file, snap)
            print(
                f"imported {len(snap.items)} records for user {snap.user_id}"
                + (f" and project {snap.project_id}" if snap.project_id else "")
                + f" into {args.root}"
            )
            return 0
        with _open(args.root) as mem:
            if args.cmd == "show":
                print(show(mem, args.user, args.project, args.as_of))
            else:
                path = export_snapshot(mem, args.user, args.project, args.as_of).write(args.out)
                print(f"wrote {path}")
        return 0
    except (PulseUserError, ValueError) as e:
        print(f"pulse memory {args.cmd}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except OSError as e:  # e.g. --out in a folder that cannot be written
        where = e.filename or args.root
        print(f"pulse memory {args.cmd}: error: {where}: {e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
