#!/usr/bin/env python3
"""Writes hostile trace pairs for the linear-work benchmarks (bench/hostile.sh): one input
dimension pushed to scale N in a single response, the rest of the trace tiny.

    python3 bench/hostile_input.py CASE N OUT_DIR      # writes OUT_DIR/baseline.* and OUT_DIR/candidate.*

Cases (N is the scale; the issue's sizes in brackets):

    tools     one Anthropic-shaped response with N tool_use blocks, a tool_call and a
              tool_result record per block [200,000]
    openai    an OpenAI Agents SDK export: one generation span whose OpenAI-shaped message
              holds N tool_calls [200,000]
    blocks    one response with N content blocks (text, thinking and tool_use mixed) [200,000]
    deep      N/100 tool calls, each input nested to the 128-level depth limit [200,000 → 2,000]
    wide      one tool call whose input is an object with N keys [100,000]
    array     one tool call whose input is an array of 10·N elements [100,000 → 1M]
    longline  one response whose text block is 250·N bytes (one long line, an e-mail address
              every ~6 kB) [200,000 → 50 MB]

The candidate is the baseline with a few changes spread through the big dimension (a renamed
tool every 7th call, a changed argument every 5th, a dropped block every 11th, an inserted one
every 13th), so sequence comparisons have real work to do. Deterministic: no randomness.
"""
import json
import os
import sys

MODEL = "claude-sonnet-4-5"
TOOLS = ["lookup_order", "issue_refund", "search_docs", "send_email", "get_weather"]


def rec(kind, ts, payload, rid):
    return {
        "version": "0.1",
        "id": f"r{rid}",
        "kind": kind,
        "ts": f"2026-11-20T10:{ts // 60 % 60:02d}:{ts % 60:02d}.000Z",
        "parent": None if rid == 0 else f"r{rid - 1}",
        "payload": payload,
    }


def write_lines(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":"), ensure_ascii=False))
            f.write("\n")


def agentlog(blocks, after=(), stop="tool_use", text_tail=True):
    """metadata, request, one response holding `blocks`, the `after` records, a request and
    a final response."""
    out = []
    add = lambda kind, p: out.append(rec(kind, len(out), p, len(out)))
    add("metadata", {"sdk": {"name": "hostile", "version": "0"}})
    add("chat_request", {"model": MODEL, "messages": [{"role": "user", "content": "Go."}]})
    add("chat_response", {"model": MODEL, "content": blocks, "stop_reason": stop,
                          "usage": {"input_tokens": 100, "output_tokens": 50}, "latency_ms": 900})
    for kind, p in after:
        add(kind, p)
    if text_tail:
        add("chat_request", {"model": MODEL, "messages": [{"role": "user", "content": "Done?"}]})
        add("chat_response", {"model": MODEL, "content": [{"type": "text", "text": "All done."}],
                              "stop_reason": "end_turn",
                              "usage": {"input_tokens": 120, "output_tokens": 5}, "latency_ms": 300})
    return out


def calls(n, cand):
    """The tool calls (name, id, input) of the `tools` case, the candidate's edits applied."""
    out = []
    for i in range(n):
        if cand and i % 11 == 10:
            continue
        name = TOOLS[i % len(TOOLS)]
        if cand and i % 7 == 3:
            name = "renamed_" + name
        args = {"order_id": f"A{i}", "amount": i % 100}
        if cand and i % 5 == 2:
            args["amount"] = -1
        out.append((name, f"toolu_{i}", args))
        if cand and i % 13 == 6:
            out.append(("inserted_tool", f"toolu_x{i}", {"note": "extra"}))
    return out


def case_tools(n, cand):
    cs = calls(n, cand)
    blocks = [{"type": "text", "text": "Working through the orders."}]
    blocks += [{"type": "tool_use", "id": i, "name": nm, "input": a} for nm, i, a in cs]
    after = []
    for nm, i, a in cs:
        after.append(("tool_call", {"tool_name": nm, "tool_call_id": i, "arguments": a}))
        after.append(("tool_result", {"tool_call_id": i, "output": {"ok": True}, "is_error": False,
                                      "latency_ms": 3}))
    return agentlog(blocks, after)


def case_blocks(n, cand):
    blocks = []
    for i in range(n):
        if cand and i % 11 == 10:
            continue
        k = i % 4
        if k == 0 or k == 1:
            word = "changed" if cand and i % 7 == 3 else "sentence"
            blocks.append({"type": "text", "text": f"Part {i}: one short {word} of the answer."})
        elif k == 2:
            blocks.append({"type": "thinking", "thinking": f"step {i}"})
        else:
            blocks.append({"type": "tool_use", "id": f"toolu_{i}", "name": TOOLS[i % 5],
                           "input": {"i": i}})
    return agentlog(blocks)


def nested(depth, leaf):
    v = leaf
    for d in range(depth):
        v = {"k": v} if d % 2 else [v]
    return v


def case_deep(n, cand):
    # line object (1) > payload (2) > content (3) > block (4) > input (5) > ... ≤ 128
    count = max(1, n // 100)
    blocks = [{"type": "tool_use", "id": f"toolu_{i}", "name": TOOLS[i % 5],
               "input": {"q": nested(122, i + (1 if cand and i % 3 == 0 else 0))}}
              for i in range(count)]
    return agentlog(blocks)


def case_wide(n, cand):
    args = {f"key_{i:07d}": (i * 7 if not (cand and i % 9 == 4) else "x") for i in range(n)}
    if cand:
        for i in range(0, n, 17):
            args.pop(f"key_{i:07d}", None)
            args[f"new_{i:07d}"] = i
    blocks = [{"type": "tool_use", "id": "toolu_w", "name": "bulk_update", "input": args}]
    after = [("tool_call", {"tool_name": "bulk_update", "tool_call_id": "toolu_w", "arguments": args}),
             ("tool_result", {"tool_call_id": "toolu_w", "output": "ok", "is_error": False})]
    return agentlog(blocks, after)


def case_array(n, cand):
    arr = [(i if not (cand and i % 9 == 4) else -i) for i in range(10 * n)]
    blocks = [{"type": "tool_use", "id": "toolu_a", "name": "bulk_insert", "input": {"rows": arr}}]
    after = [("tool_call", {"tool_name": "bulk_insert", "tool_call_id": "toolu_a", "arguments": {"rows": arr}}),
             ("tool_result", {"tool_call_id": "toolu_a", "output": "ok", "is_error": False})]
    return agentlog(blocks, after)


def case_longline(n, cand):
    words = ["refund", "order", "customer", "the", "a", "broken", "mug", "policy", "amount", "Shall"]
    parts = []
    size = 0
    i = 0
    target = 250 * n
    while size < target:
        w = words[(i * 7 + i // 3) % len(words)]
        if cand and i % 1009 == 500:
            w = "CHANGED"
        if i % 997 == 13:
            w = "dana@example.com"  # a secret to redact every few kB
        parts.append(w)
        size += len(w) + 1
        i += 1
    text = " ".join(parts)
    return agentlog([{"type": "text", "text": text}], stop="end_turn", text_tail=False)


def case_openai(n, cand):
    cs = calls(n, cand)
    trace = "trace_0123456789abcdef0123456789abcdef"
    spans = [{"object": "trace", "id": trace, "workflow_name": "Agent workflow", "group_id": None,
              "metadata": None}]

    def span(sid, parent, t0, t1, data):
        return {"object": "trace.span", "id": sid, "trace_id": trace, "parent_id": parent,
                "started_at": f"2026-11-24T22:36:{t0:02d}.000000+00:00",
                "ended_at": f"2026-11-24T22:36:{t1:02d}.000000+00:00", "span_data": data, "error": None}

    tool_calls = [{"id": i, "type": "function",
                   "function": {"name": nm, "arguments": json.dumps(a, separators=(",", ":"))}}
                  for nm, i, a in cs]
    spans.append(span("span_agent", None, 0, 9, {"type": "agent", "name": "support", "handoffs": [],
                                                 "tools": TOOLS, "output_type": "str"}))
    spans.append(span("span_gen1", "span_agent", 1, 2, {
        "type": "generation",
        "input": [{"role": "user", "content": "Go."}],
        "output": [{"content": None, "role": "assistant", "tool_calls": tool_calls}],
        "model": "gpt-4o-mini",
        "usage": {"input_tokens": 100, "output_tokens": 50}}))
    spans.append(span("span_gen2", "span_agent", 3, 4, {
        "type": "generation",
        "input": [{"role": "user", "content": "Done?"}],
        "output": [{"content": "All done.", "role": "assistant"}],
        "model": "gpt-4o-mini",
        "usage": {"input_tokens": 120, "output_tokens": 5}}))
    return spans


CASES = {
    "tools": (case_tools, "agentlog"),
    "openai": (case_openai, "jsonl"),
    "blocks": (case_blocks, "agentlog"),
    "deep": (case_deep, "agentlog"),
    "wide": (case_wide, "agentlog"),
    "array": (case_array, "agentlog"),
    "longline": (case_longline, "agentlog"),
}


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        sys.exit(f"usage: hostile_input.py {{{'|'.join(CASES)}}} N OUT_DIR")
    case, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    make, ext = CASES[case]
    os.makedirs(out, exist_ok=True)
    for side, cand in (("baseline", False), ("candidate", True)):
        write_lines(os.path.join(out, f"{side}.{ext}"), make(n, cand))


if __name__ == "__main__":
    main()
