"""Policy replacements as the real SDKs see them: run by tests/proxy/sdk.rs against veer's proxy
in `--enforce replace` mode, where every answer mentioning "wire transfer" is replaced. Checks
that the replacement bodies and event streams veer builds parse in the `openai` and `anthropic`
SDKs, whole and streamed, on all three endpoints. Prints one JSON line of the texts seen."""

import json

import anthropic
import openai

oa = openai.OpenAI(max_retries=0)
an = anthropic.Anthropic(max_retries=0)
ask = [{"role": "user", "content": "say: a wire transfer it is"}]
seen = {}

r = oa.chat.completions.create(model="m-plain", messages=ask)
seen["chat"] = r.choices[0].message.content
with oa.chat.completions.stream(model="m-plain", messages=ask) as s:
    seen["chat_stream"] = s.get_final_completion().choices[0].message.content
seen["responses"] = oa.responses.create(model="m-plain", input="say: a wire transfer it is").output_text
with oa.responses.stream(model="m-plain", input="say: a wire transfer it is") as s:
    seen["responses_stream"] = s.get_final_response().output_text
seen["messages"] = an.messages.create(model="m-plain", max_tokens=9, messages=ask).content[0].text
with an.messages.stream(model="m-plain", max_tokens=9, messages=ask) as s:
    seen["messages_stream"] = s.get_final_message().content[0].text
print(json.dumps(seen))
