#!/usr/bin/env bash
# Reading the formats of crates/veer-trace/src/formats/ in a fresh process: writes one input of
# 100,000 spans / entries / messages per format (Claude Code, MCP, OpenAI Agents SDK, Langfuse,
# LangSmith; python3 needed, no packages) under target/bench/inputs/formats/ and runs
# bench/read.sh on them (median MB/s of --runs runs, all cores and one thread).
#
#   bench/formats.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/bench/inputs/formats
mkdir -p "$dir"
python3 - "$dir" <<'PY'
import json, sys
d, N = sys.argv[1], 100_000
def ts(i): return "2026-01-01T%02d:%02d:%02d.%03dZ" % (i // 3600000 % 24, i // 60000 % 60, i // 1000 % 60, i % 1000)
with open(f"{d}/claude-code.jsonl", "w") as f:
    for i in range(N):
        e = {"type": "user" if i % 2 == 0 else "assistant", "sessionId": "s", "uuid": f"u{i}",
             "parentUuid": None if i == 0 else f"u{i-1}", "timestamp": ts(i)}
        e["message"] = ({"role": "user", "content": f"please look at item {i}"} if i % 2 == 0 else
                        {"id": f"m{i}", "model": "claude", "content": [{"type": "text", "text": f"Looking at {i}."},
                         {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"cat item-{i}"}}],
                         "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 20}})
        f.write(json.dumps(e) + "\n")
with open(f"{d}/mcp.jsonl", "w") as f:
    for i in range(N // 2):
        f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": f"tool{i % 7}", "arguments": {"item": i}}}) + "\n")
        f.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": f"result of {i}"}]}}) + "\n")
with open(f"{d}/openai-agents.jsonl", "w") as f:
    f.write(json.dumps({"object": "trace", "id": "trace_big", "workflow_name": "w"}) + "\n")
    for i in range(N):
        sd = ({"type": "generation", "model": "gpt-4o-mini", "input": [{"role": "user", "content": f"q{i}"}],
               "output": [{"role": "assistant", "content": None, "tool_calls": [{"id": f"call_{i}", "type": "function",
               "function": {"name": "f", "arguments": json.dumps({"i": i})}}]}], "usage": {"input_tokens": 100, "output_tokens": 20}}
              if i % 2 == 0 else {"type": "function", "name": "f", "input": json.dumps({"i": i - 1}), "output": "ok"})
        f.write(json.dumps({"object": "trace.span", "id": f"span_{i:08}", "trace_id": "trace_big", "parent_id": "span_root",
                            "started_at": ts(i), "ended_at": ts(i + 1), "span_data": sd}) + "\n")
obs = [({"id": f"o{i:08}", "type": "GENERATION", "startTime": ts(i), "endTime": ts(i + 1), "model": "gpt-4o-mini",
         "input": [{"role": "user", "content": f"q{i}"}], "output": {"role": "assistant", "content": f"answer {i}"},
         "usageDetails": {"input": 100, "output": 20}} if i % 2 == 0 else
        {"id": f"o{i:08}", "type": "TOOL", "name": "f", "startTime": ts(i), "endTime": ts(i + 1), "input": {"i": i}, "output": "ok"})
       for i in range(N)]
json.dump({"id": "t", "observations": obs}, open(f"{d}/langfuse.json", "w"))
runs = [{"id": f"r{i:08}", "run_type": "llm" if i % 2 == 0 else "tool", "name": "f", "start_time": ts(i), "end_time": ts(i + 1),
         "trace_id": "t", "inputs": {"messages": [{"role": "user", "content": f"q{i}"}]} if i % 2 == 0 else {"i": i},
         "outputs": {"choices": [{"message": {"role": "assistant", "content": f"answer {i}"}, "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 20}} if i % 2 == 0 else {"output": "ok"}}
        for i in range(N)]
json.dump(runs, open(f"{d}/langsmith.json", "w"))
PY
exec bench/read.sh "$@" "$dir/claude-code.jsonl" "$dir/mcp.jsonl" "$dir/openai-agents.jsonl" "$dir/langfuse.json" "$dir/langsmith.json"
