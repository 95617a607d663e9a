"""Writes a large OTLP/JSON input for bench/otel.sh from a committed vector written by the real
SDKs: the agent run of tests/fixtures/otel/openai-v2/content/baseline.otlp.jsonl repeated with
fresh trace and span ids, until the file holds at least --mb megabytes.

  python3 bench/otel_input.py --mb 200 --shape lines OUT      # Collector file-exporter shape
  python3 bench/otel_input.py --mb 200 --shape document OUT   # one ExportTraceServiceRequest
"""

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests/fixtures/otel/openai-v2/content/baseline.otlp.jsonl"


def copies(template: dict):
    n = 0
    while True:
        n += 1
        doc = json.loads(json.dumps(template))
        ids = {}
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for sp in ss["spans"]:
                    sp["traceId"] = f"{n:032x}"
                    for k in ("spanId", "parentSpanId"):
                        if sp.get(k):
                            sp[k] = ids.setdefault(sp[k], f"{n:08x}{len(ids):08x}")
                    for a in sp.get("attributes", []):
                        if a["key"] == "gen_ai.conversation.id":
                            a["value"] = {"stringValue": f"conv-{n}"}
        yield doc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mb", type=float, default=200)
    p.add_argument("--shape", choices=["lines", "document"], default="lines")
    p.add_argument("out")
    a = p.parse_args()
    template = json.loads(SOURCE.read_text().splitlines()[0])
    target = int(a.mb * 1e6)
    size = 0
    with open(a.out, "w") as f:
        if a.shape == "lines":
            for doc in copies(template):
                line = json.dumps(doc, separators=(",", ":")) + "\n"
                f.write(line)
                size += len(line)
                if size >= target:
                    break
        else:
            f.write('{"resourceSpans":[')
            first = True
            for doc in copies(template):
                for rs in doc["resourceSpans"]:
                    part = ("" if first else ",") + json.dumps(rs, separators=(",", ":"))
                    first = False
                    f.write(part)
                    size += len(part)
                if size >= target:
                    break
            f.write("]}\n")


if __name__ == "__main__":
    main()
