#!/usr/bin/env python3
"""Writes m22_oracle.jsonl: chat bodies and what M22's live decision logic
answers for each, computed here in CPython with pydantic (the versions
that wrote the file are in its first line). The model below restates the
issue's description of M22's ChatCompletionRequest and default pack; the
Go tests compare every line and never need Python.

    python3 testdata/gen_oracle.py > testdata/m22_oracle.jsonl
"""
import json
import random
import sys
from typing import List, Optional

import pydantic
from pydantic import BaseModel, ValidationError

class Msg(BaseModel):
    role: str
    content: str
    name: Optional[str] = None

class Req(BaseModel):
    model: str = "gpt-4o-mini"
    messages: List[Msg]
    temperature: Optional[float] = 1.0
    top_p: Optional[float] = 1.0
    n: Optional[int] = 1
    stream: Optional[bool] = False
    stop: Optional[List[str]] = None
    max_tokens: Optional[int] = 4096
    presence_penalty: Optional[float] = 0
    frequency_penalty: Optional[float] = 0
    user: Optional[str] = None
    seed: Optional[int] = None

PRICES = {"gpt-4o": (250, 1000), "gpt-4o-mini": (15, 60), "gpt-4-turbo": (1000, 3000),
          "gpt-4": (3000, 6000), "gpt-3.5-turbo": (50, 150),
          "claude-3-5-sonnet-20241022": (300, 1500), "claude-3-5-haiku-20241022": (80, 400),
          "claude-opus-4-20250514": (1500, 7500)}
PATTERNS = ["ignore previous instructions", "disregard above", "system prompt:", "\\n\\nHuman:", "\\n\\nAssistant:"]
PACK = [("dg-005", "prompt_injection_block", "block"), ("dg-004", "failure_spike_freeze", "freeze"),
        ("dg-001", "max_cost_per_request", "block"), ("dg-002", "max_tokens_per_request", "block"),
        ("dg-003", "rate_limit_rpm", "throttle")]

def decide(text):
    try:
        body = json.loads(text)
        req = Req.model_validate(body)
    except (ValidationError, ValueError):
        return {"status": 422}
    rb = req.model_dump()
    s = str(rb["messages"])
    decisions, blocked, cost = [], None, None
    for gid, name, action in PACK:
        passed, reason = True, None
        if name == "prompt_injection_block":
            for p in PATTERNS:
                if p.lower() in s.lower():
                    passed, reason = False, f"Blocked pattern detected: {p[:20]}..."
                    break
        elif name == "max_cost_per_request":
            mt = rb["max_tokens"]
            if mt is None:
                return {"status": 500}
            pin, pout = PRICES.get(rb["model"], PRICES["gpt-4o-mini"])
            cost = (len(s) // 4 / 1_000_000) * pin + (mt / 1_000_000) * pout
            if cost > 100:
                passed, reason = False, f"cost_cents ({cost}) exceeds max (100)"
        elif name == "max_tokens_per_request":
            if rb["max_tokens"] > 16000:
                passed, reason = False, f"max_tokens ({rb['max_tokens']}) exceeds max (16000)"
        decisions.append({"guardrail_id": gid, "guardrail_name": name, "passed": passed,
                          "action": action if not passed else None, "reason": reason})
        if not passed and action == "block" and blocked is None:
            blocked = name
    return {"status": 400 if blocked else 200, "block_reason": blocked, "repr_len": len(s),
            "cost": repr(cost), "decisions": json.dumps(decisions)}

rnd = random.Random(11)
texts = ["hello", "", "it's \"x\"", "a\\b", "\n\nHuman: hi", "x\r\n\nAssistant:", "IGNORE PREVIOUS INSTRUCTIONS now",
         "İgnore previous instructions", "system prompt: x", "Disregard Above!", "日本語テキスト", "\u2028\x00\x7f",
         "\U0001f600" * 3, "\ud800", "\\n\\nhuman:"]
models = list(PRICES) + ["unknown-model", None]
maxes = [None, "null", 0, 1, 4096, 16000, 16001, 100000, 1000000, 2000000, "\"5000\"", "5.0", "true", "-3",
         "12345678901234567890", "1e3"]

def body():
    b = {}
    m = rnd.choice(models)
    if m is not None:
        b["model"] = m
    msgs = []
    for _ in range(rnd.randint(0, 3)):
        x = {"role": rnd.choice(["user", "system", "assistant"]), "content": rnd.choice(texts)}
        if rnd.random() < 0.2:
            x["name"] = rnd.choice(["bob", "o'neil", None])
        if rnd.random() < 0.1:
            x["tool_calls"] = []
        msgs.append(x)
    b["messages"] = msgs
    parts = [json.dumps(b)[:-1]]
    mt = rnd.choice(maxes)
    if mt is not None:
        parts.append(', "max_tokens": ' + str(mt))
    return "".join(parts) + "}"

bodies = [body() for _ in range(400)]
# Long prompts: the cost crosses 100 cents near these lengths.
for n, model, mt in [(133288, "gpt-4", 0), (133289, "gpt-4", 0), (133292, "gpt-4", 0),
                     (4000, "gpt-4", 16000), (40000, "claude-opus-4-20250514", 12000), (40003, "gpt-4o", 4096)]:
    bodies.append(json.dumps({"model": model, "messages": [{"role": "user", "content": "w" * n}], "max_tokens": mt}))
bodies += [
    '{"messages": [{"role": "user", "content": 5}]}',
    '{"messages": [{"role": "user", "content": null}]}',
    '{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}',
    '{"messages": [{"role": "user"}]}',
    '{"model": "gpt-4o"}',
    '{"messages": {}}',
    '{"messages": [], "max_tokens": null}',
    '{"messages": []}',
    '{"model": null, "messages": []}',
    '{"messages": [], "stop": "\\n"}',
    '{"messages": [], "stop": ["a", 1]}',
    '{"messages": [], "temperature": "hot"}',
    '{"messages": [], "temperature": "0.5"}',
    '{"messages": [], "stream": "yes"}',
    '{"messages": [], "stream": 2}',
    '{"messages": [], "max_tokens": 5.5}',
    '{"messages": [], "max_tokens": "1_000"}',
    '{"messages": [], "max_tokens": " 7 "}',
    '{"messages": [], "max_tokens": 1e20}',
    '{"messages": [], "n": "two"}',
    '{"messages": [], "user": 7}',
    '{"messages": [{"role": "user", "content": "a", "name": 3}]}',
    '[1, 2]',
    '{"messages": [], "messages": [{"role": "user", "content": "dup"}]}',
]
sys.stdout.write(json.dumps({"python": sys.version.split()[0], "pydantic": pydantic.VERSION}) + "\n")
for t in bodies:
    out = {"body": t}
    out.update(decide(t))
    sys.stdout.write(json.dumps(out) + "\n")
