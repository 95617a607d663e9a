#!/usr/bin/env python3
"""Writes a large bare traxr trace for the read benchmarks: the five events of the
`external_mock` golden's baseline run (tests/fixtures/traxr/goldens/external_mock.json)
repeated until N events, each with its own sequence_index and step_num, as compact JSON.

    python3 bench/traxr_input.py 300000 target/bench/inputs/traxr-300000/trace.json
"""
import json
import os
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: traxr_input.py N OUT")
    n, out = int(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    golden = os.path.join(here, "..", "tests", "fixtures", "traxr", "goldens", "external_mock.json")
    with open(golden, encoding="utf-8") as f:
        events = json.load(f)["traces"]["baseline"]["events"]
    out_events = []
    for i in range(n):
        e = dict(events[i % len(events)])
        e["sequence_index"] = i
        e["step_num"] = i // len(events) * 2 + e["step_num"]
        out_events.append(e)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"run_label": "bench", "event_count": n, "events": out_events}, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
