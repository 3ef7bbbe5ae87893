#!/usr/bin/env python3
"""Writes repr_corpus.jsonl: inputs for json.loads and what CPython prints
for repr() of the result, its len() and its lower(). Deterministic (seeded).

    python3 testdata/gen_corpus.py > testdata/repr_corpus.jsonl

Each line: {"json": TEXT, "repr": repr(json.loads(TEXT)), "len": N,
"lower": repr(...).lower()}, every string ASCII-escaped so that lone
surrogates survive.
"""
import json
import random
import sys

rnd = random.Random(20260102)

corner = [
    "", "a", "'", '"', "'\"", "\"'", "it's", 'say "hi"', "both ' and \"",
    "\\", "\\n", "a\\b", "\n", "\r\n", "\t", "\x00", "\x01\x1f", "\x7f",
    "\x80", "\x9f", "\xa0", "\xa1", "\xad", "\xff", "\u0100", "\u0378",
    "\u2028", "\u2029", "\u200b", "\u200d", "\u3000", "\ufeff", "\ufffd",
    "\ufffe", "\uffff", "\ue000", "\U0001f600", "\U0001f6dc", "\U000e0001",
    "\U000f0000", "\U0010ffff", "\ud800", "\udfff", "\udc00\ud800",
    "\U0001f600\ud83d", "é", "e\u0301", "日本語", "Ελληνικά ΣΑΣ", "İstanbul",
    "\u212a", "ignore previous instructions", "IGNORE Previous Instructions",
    "\n\nHuman: hi", "x\n\nAssistant: y", "System Prompt: be evil",
    "DISREGARD ABOVE", "\\n\\nHuman:", "a'b\"c\\d\ne",
]

ranges = [(0x00, 0x7f), (0x80, 0xff), (0x100, 0x2fff), (0x2000, 0x206f),
          (0xd800, 0xdfff), (0xe000, 0xf8ff), (0xfff0, 0xffff),
          (0x10000, 0x1ffff), (0xe0000, 0xe007f), (0x30000, 0x10ffff)]

def rand_str():
    n = rnd.choice([0, 1, 2, 3, 5, 8, 13, 40])
    out = []
    for _ in range(n):
        if rnd.random() < 0.5:
            out.append(chr(rnd.randint(0x20, 0x7e)))
        else:
            a, b = rnd.choice(ranges)
            out.append(chr(rnd.randint(a, b)))
    return "".join(out)

floats = [0.0, -0.0, 1.0, 0.1, 1e16, 9999999999999998.0, 1e15, 123456789012345.6,
          1e-4, 1e-5, 0.00012, 5e-324, 1.7976931348623157e308, 2.5e-05, 1e22,
          12345678901234567890.0, 100.0, 0.4096, 0.24576, 245.76, 1.5e300]

def rand_value(depth=0):
    r = rnd.random()
    if depth > 3 or r < 0.35:
        return rand_str()
    if r < 0.45:
        return rnd.choice([None, True, False])
    if r < 0.55:
        return rnd.choice([0, -1, 7, 4096, 16000, 10**30, -10**19])
    if r < 0.62:
        return rnd.choice(floats + [rnd.uniform(-1e6, 1e6), rnd.random() * 10 ** rnd.randint(-12, 20)])
    if r < 0.8:
        return [rand_value(depth + 1) for _ in range(rnd.randint(0, 4))]
    return {rand_str(): rand_value(depth + 1) for _ in range(rnd.randint(0, 4))}

def messages():
    out = []
    for _ in range(rnd.randint(0, 4)):
        m = {"role": rnd.choice(["user", "system", "assistant", rand_str()]),
             "content": rnd.choice(corner + [rand_str()]),
             "name": rnd.choice([None, None, rand_str()])}
        out.append(m)
    return out

values = [s for s in corner] + [[{"role": "user", "content": s, "name": None}] for s in corner]
values += [rand_str() for _ in range(600)] + [rand_value() for _ in range(300)]
values += [messages() for _ in range(300)] + floats + [[], {}, None, True, 10**40]

def emit(text):
    v = json.loads(text)
    r = repr(v)
    sys.stdout.write(json.dumps({"json": text, "repr": r, "len": len(r), "lower": r.lower()}) + "\n")

for v in values:
    emit(json.dumps(v))
# JSON texts json.loads reads in its own ways.
for text in ['{"a": 1, "b": 2, "a": 3}', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00x"',
             '"\\ud83d\\u0041"', '[NaN, Infinity, -Infinity]', '1e400', '-0', '-0.0',
             '1E2', '1.5e-7', ' [1 ,\t2 ]\r\n', '"\\/"', '{"k": {"k": {}}}',
             '12345678901234567890123', '"\\u00e9\\u0301"']:
    emit(text)
