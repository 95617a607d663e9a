"""A deterministic agent on the real `openai` SDK for `veer experiment run`'s test
(crates/veer/tests/cli/experiment_run.rs): it reads the input file named on the command line,
asks the model (the scripted upstream, through veer's recording proxy at OPENAI_BASE_URL) what
to do, answers its tool calls, and prints `rows=N` (non-blank lines after the header)."""

import sys

import openai

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    content = f.read()
rows = sum(1 for line in content.splitlines()[1:] if line.strip())

client = openai.OpenAI()
messages = [{"role": "user", "content": content}]
for _ in range(4):
    answer = client.chat.completions.create(model="scripted-1", messages=messages)
    message = answer.choices[0].message
    calls = message.tool_calls or []
    messages.append(message.model_dump(exclude_none=True))
    if not calls:
        break
    for call in calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": f"{rows} rows"})
print(f"working on {path}")
print(f"rows={rows}")
