"""A small agent using the real `openai` and `anthropic` SDKs, run by tests/proxy/sdk.rs with
OPENAI_BASE_URL / ANTHROPIC_BASE_URL pointing at veer's recording proxy (in front of the
scripted upstream of tests/support/scripted.rs). Prints one JSON line of what the SDKs saw.

Pinned SDK versions: see .ci/run (openai, anthropic)."""

import json

import anthropic
import openai

oa = openai.OpenAI(max_retries=0)
an = anthropic.Anthropic(max_retries=0)
seen = {}

TOOLS_OA = [
    {"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "refund_order", "parameters": {"type": "object"}}},
]
TOOLS_AN = [
    {"name": "lookup_order", "input_schema": {"type": "object"}},
    {"name": "refund_order", "input_schema": {"type": "object"}},
]


def user(text):
    return [{"role": "user", "content": text}]


r = oa.chat.completions.create(model="m-plain", messages=user("say: hello there"))
seen["openai_plain"] = r.choices[0].message.content

text = ""
for chunk in oa.chat.completions.create(model="m-plain", messages=user("say: streamed words arrive"), stream=True, stream_options={"include_usage": True}):
    if chunk.choices and chunk.choices[0].delta.content:
        text += chunk.choices[0].delta.content
seen["openai_stream"] = text

r = oa.chat.completions.create(model="m-parallel", messages=user("refund 42"), tools=TOOLS_OA)
calls = r.choices[0].message.tool_calls
seen["openai_tools"] = [[c.function.name, json.loads(c.function.arguments)] for c in calls]

with oa.chat.completions.stream(model="m-parallel", messages=user("refund 42"), tools=TOOLS_OA) as s:
    final = s.get_final_completion()
seen["openai_stream_tools"] = [[c.function.name, json.loads(c.function.arguments)] for c in final.choices[0].message.tool_calls]

# The agent runs its tools and sends the results back.
history = user("refund 42") + [r.choices[0].message.model_dump(exclude_none=True)]
for c in calls:
    history.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps({"ok": c.function.name})})
r = oa.chat.completions.create(model="m-plain", messages=history + user("say: done"), tools=TOOLS_OA)
seen["openai_followup"] = r.choices[0].message.content

r = oa.responses.create(model="m-plain", input="say: responses text")
seen["responses_plain"] = r.output_text
text = ""
for ev in oa.responses.create(model="m-plain", input="say: responses streamed", stream=True):
    if ev.type == "response.output_text.delta":
        text += ev.delta
seen["responses_stream"] = text
with oa.responses.stream(model="m-parallel", input="refund 42", tools=[{"type": "function", "name": "lookup_order", "parameters": {"type": "object"}}]) as s:
    final = s.get_final_response()
seen["responses_stream_tools"] = [[i.name, json.loads(i.arguments)] for i in final.output if i.type == "function_call"]

m = an.messages.create(model="m-plain", max_tokens=50, messages=user("say: claude says hi"))
seen["anthropic_plain"] = m.content[0].text
with an.messages.stream(model="m-plain", max_tokens=50, messages=user("say: claude streams")) as s:
    seen["anthropic_stream"] = "".join(s.text_stream)
m = an.messages.create(model="m-parallel", max_tokens=50, messages=user("refund 42"), tools=TOOLS_AN)
seen["anthropic_tools"] = [[b.name, b.input] for b in m.content if b.type == "tool_use"]
with an.messages.stream(model="m-parallel", max_tokens=50, messages=user("refund 42"), tools=TOOLS_AN) as s:
    final = s.get_final_message()
seen["anthropic_stream_tools"] = [[b.name, b.input] for b in final.content if b.type == "tool_use"]

try:
    oa.chat.completions.create(model="m-status500", messages=user("hi"))
except openai.APIStatusError as e:
    seen["openai_error"] = f"{type(e).__name__} {e.status_code}"
try:
    an.messages.create(model="m-plain", max_tokens=50, messages=user("say: send a wire transfer"))
except anthropic.APIStatusError as e:
    seen["anthropic_policy"] = f"{type(e).__name__} {e.status_code}"
try:
    oa.chat.completions.create(model="m-plain", messages=user("say: wire transfer please"), stream=True)
except openai.APIStatusError as e:
    seen["openai_policy"] = f"{type(e).__name__} {e.status_code}"

print(json.dumps(seen))
