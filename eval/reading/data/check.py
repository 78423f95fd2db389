"""Check the annotated statement set: python eval/reading/data/check.py [DIR]"""
import collections, json, pathlib, re, sys

FACT_KEYS = {"tool", "argument", "value", "polarity", "holder", "kind", "condition",
             "lasting", "withdraws", "revises"}
KINDS = ("preference", "habit", "attribute", "decision", "requirement")
HOLDER = re.compile(r"^(user|person:[^\s:][^:]*|team:[a-z0-9_\-]+|project:[a-z0-9_\-]+)$", re.I)
SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")


def check_value(spec, value, where, errors, what="value"):
    if "enum" in spec:
        if value not in spec["enum"]:
            errors.append(f"{where}: {what} {value!r} not in enum {spec['enum']}")
    elif spec["type"] == "integer":
        if not re.fullmatch(r"-?\d+", value):
            errors.append(f"{where}: {what} {value!r} is not an integer")
    elif spec["type"] == "boolean":
        if value not in ("true", "false"):
            errors.append(f"{where}: {what} {value!r} is not true/false")
    elif not value.strip():
        errors.append(f"{where}: empty {what}")


def main(root):
    errors, ids = [], set()
    per_domain, per_kind = {}, collections.Counter()
    files = sorted(pathlib.Path(root).glob("*.json"))
    for path in files:
        d = json.loads(path.read_text())
        dom = d["domain"]
        if dom != path.stem:
            errors.append(f"{path.name}: domain {dom!r} differs from file name")
        tools = {}
        for t in d["tools"]:
            if t["name"] in tools:
                errors.append(f"{dom}: duplicate tool {t['name']}")
            tools[t["name"]] = t["arguments"]
            for a, spec in t["arguments"].items():
                if not spec.get("description") or "type" not in spec:
                    errors.append(f"{dom}/{t['name']}.{a}: type and description required")
                for v in spec.get("enum", []):
                    if not SNAKE.match(v):
                        errors.append(f"{dom}/{t['name']}.{a}: enum value {v!r} not snake_case")
        holders_of = collections.defaultdict(list)
        for name, args in tools.items():
            for a in args:
                holders_of[a].append(name)
        kinds = collections.Counter()
        for s in d["statements"]:
            sid = s["id"]
            if sid in ids:
                errors.append(f"duplicate id {sid}")
            ids.add(sid)
            if not re.fullmatch(rf"{re.escape(dom)}-\d{{3}}", sid):
                errors.append(f"{sid}: id does not follow {dom}-NNN")
            text = s["text"]
            if not text.strip():
                errors.append(f"{sid}: empty text")
            if not s["facts"]:
                kinds["none"] += 1
            for f in s["facts"]:
                w = f"{sid} {f.get('argument')}"
                if set(f) != FACT_KEYS:
                    errors.append(f"{w}: keys {sorted(set(f) ^ FACT_KEYS)} wrong")
                    continue
                if f["tool"]:
                    if f["tool"] not in tools:
                        errors.append(f"{w}: unknown tool {f['tool']}")
                        continue
                    specs = [tools[f["tool"]].get(f["argument"])]
                    if specs[0] is None:
                        errors.append(f"{w}: tool {f['tool']} has no argument {f['argument']}")
                        continue
                else:
                    specs = [tools[t][f["argument"]] for t in holders_of.get(f["argument"], [])]
                    if not specs:
                        errors.append(f"{w}: no tool has argument {f['argument']}")
                        continue
                for spec in specs[:1]:
                    check_value(spec, f["value"], w, errors)
                    if f["revises"]:
                        check_value(spec, f["revises"], w, errors, "revises")
                if f["polarity"] not in ("prefer", "avoid"):
                    errors.append(f"{w}: polarity {f['polarity']!r}")
                if not HOLDER.match(f["holder"]):
                    errors.append(f"{w}: holder {f['holder']!r}")
                if f["kind"] not in KINDS:
                    errors.append(f"{w}: kind {f['kind']!r}")
                if f["kind"] == "decision" and f["holder"] == "user":
                    errors.append(f"{w}: a decision needs a team/project/person holder")
                if f["kind"] == "requirement" and f["lasting"]:
                    errors.append(f"{w}: a requirement of the current task is not lasting")
                if f["condition"] and f["condition"].lower() not in text.lower():
                    errors.append(f"{w}: condition {f['condition']!r} not in text")
                for b in ("lasting", "withdraws"):
                    if not isinstance(f[b], bool):
                        errors.append(f"{w}: {b} not boolean")
                if f["revises"] and f["revises"] == f["value"]:
                    errors.append(f"{w}: revises equals value")
                kinds[f["kind"]] += 1
        per_domain[dom] = (len(d["statements"]), sum(len(s["facts"]) for s in d["statements"]), kinds)
        per_kind.update(kinds)
    for e in errors:
        print("ERROR", e)
    print(f"{'domain':20} statements facts  " + " ".join(f"{k:>11}" for k in KINDS + ("none",)))
    for dom, (n, nf, k) in per_domain.items():
        print(f"{dom:20} {n:10} {nf:5}  " + " ".join(f"{k[x]:11}" for x in KINDS + ("none",)))
    tot_s = sum(v[0] for v in per_domain.values())
    tot_f = sum(v[1] for v in per_domain.values())
    print(f"{'total':20} {tot_s:10} {tot_f:5}  " + " ".join(f"{per_kind[x]:11}" for x in KINDS + ("none",)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent))
