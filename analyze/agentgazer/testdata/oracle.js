#!/usr/bin/env node
// Independent oracle for the expected values in the agentgazer package tests.
//
// It implements SPEC §4.2 ("agentgazer" profile) literally in JavaScript,
// with JavaScript's own RegExp, String.prototype.replace/toLowerCase/trim,
// JSON.parse, template-literal String conversion, Array.prototype.sort and
// Buffer.toString("utf-8") -- the engine AgentGazer itself runs on -- and
// prints Go table rows that were pasted into the *_test.go files. It is NOT
// run by the tests (CI has no Node.js); rerun it by hand after changing the
// inputs below and compare. The vectors in the tests were generated with
// Node v20.20.2 (V8 11.3, ICU 78.2, Unicode 17.0).
//
//   node testdata/oracle.js normalize   # normalizeVectors
//   node testdata/oracle.js simhash     # simhashVectors
//   node testdata/oracle.js hashtext    # hashTextVectors
//   node testdata/oracle.js prompt      # promptVectors
//   node testdata/oracle.js tools       # toolVectors
//   node testdata/oracle.js captures    # captureVectors (reads ../../../shared/captures)
//   node testdata/oracle.js unicode     # writes testdata/unicode/*.txt
"use strict";

// ---- SPEC §4.2, literally --------------------------------------------------

function normalize(text) {
  let s = text;
  s = s.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<ID>");
  s = s.replace(/\b\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?\b/g, "<TS>");
  s = s.replace(/\b[0-9a-f]{16,}\b/gi, "<ID>");
  s = s.replace(/\b(id|user|order|session|request|msg|message|chat|thread)[_-]?[a-z0-9]+\b/gi, "<ID>");
  s = s.replace(/\b\d+(\.\d+)?\b/g, "<NUM>");
  s = s.replace(/\s+/g, " ");
  return s.toLowerCase().trim();
}

const MASK64 = (1n << 64n) - 1n;

function fnv1a(units) {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < units.length; i++) {
    h ^= BigInt(units.charCodeAt(i));
    h = (h * 0x100000001b3n) & MASK64;
  }
  return h;
}

function simhash(text) {
  const t = text.toLowerCase().replace(/\s+/g, " ").trim();
  const features = [];
  if (t.length < 3) features.push(t);
  else for (let i = 0; i + 3 <= t.length; i++) features.push(t.slice(i, i + 3));
  const ones = new Array(64).fill(0);
  for (const f of features) {
    const h = fnv1a(f);
    for (let b = 0; b < 64; b++) if ((h >> BigInt(b)) & 1n) ones[b]++;
  }
  let r = 0n;
  for (let b = 0; b < 64; b++) if (ones[b] > features.length - ones[b]) r |= 1n << BigInt(b);
  return r;
}

// prompt throws exactly where the description's property reads throw in
// JavaScript (reading .role or .content of null).
function prompt(body) {
  if (body.messages && Array.isArray(body.messages)) {
    const m = body.messages;
    for (let i = m.length - 1; i >= 0; i--) {
      if (m[i].role === "user" && typeof m[i].content === "string") return m[i].content;
    }
    if (m.length > 0 && typeof m[m.length - 1].content === "string") return m[m.length - 1].content;
    return "";
  }
  if (typeof body.prompt === "string") return body.prompt;
  if (typeof body.input === "string") return body.input;
  return "";
}

function toolSignature(body) {
  const list = [];
  if (body.functions && Array.isArray(body.functions)) {
    for (const f of body.functions) {
      if (typeof f === "object" && f !== null && "name" in f) list.push(`fn:${f.name}`);
    }
  }
  if (body.tools && Array.isArray(body.tools)) {
    for (const t of body.tools) {
      if (typeof t === "object" && t !== null && t.type === "function" && t.function?.name) {
        list.push(`fn:${t.function.name}`);
      }
    }
  }
  const tc = body.tool_choice;
  if (tc && typeof tc === "object" && tc.name) list.push(`tool:${tc.name}`);
  return list.sort().join(",");
}

// ---- Go literals -------------------------------------------------------------

const hex2 = (n) => n.toString(16).padStart(2, "0");

// goBytes quotes bytes as a Go string literal.
function goBytes(buf) {
  let out = "";
  const s = buf.toString("latin1");
  let i = 0;
  while (i < buf.length) {
    const c = buf[i];
    if (c === 0x22) { out += '\\"'; i++; continue; }
    if (c === 0x5c) { out += "\\\\"; i++; continue; }
    if (c === 0x0a) { out += "\\n"; i++; continue; }
    if (c === 0x09) { out += "\\t"; i++; continue; }
    if (c === 0x0d) { out += "\\r"; i++; continue; }
    if (c >= 0x20 && c < 0x7f) { out += s[i]; i++; continue; }
    // A well-formed UTF-8 sequence becomes \u/\U, anything else \x bytes.
    const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    const seq = buf.subarray(i, i + len);
    const dec = len > 1 && seq.length === len ? seq.toString("utf-8") : "";
    const cp = dec.codePointAt(0);
    if (len > 1 && dec.length > 0 && !dec.includes("\ufffd") && Buffer.from(dec).equals(seq)) {
      out += cp > 0xffff ? "\\U" + cp.toString(16).padStart(8, "0") : "\\u" + cp.toString(16).padStart(4, "0");
      i += len;
      continue;
    }
    if (c === 0xef && buf[i + 1] === 0xbf && buf[i + 2] === 0xbd) { out += "\\ufffd"; i += 3; continue; }
    out += "\\x" + hex2(c);
    i++;
  }
  return '"' + out + '"';
}

// wtf8 encodes a JavaScript string as WTF-8 (lone surrogates as 3 bytes).
function wtf8(str) {
  const bytes = [];
  for (let i = 0; i < str.length; ) {
    const cp = str.codePointAt(i);
    i += cp > 0xffff ? 2 : 1;
    if (cp >= 0xd800 && cp <= 0xdfff) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else bytes.push(...Buffer.from(String.fromCodePoint(cp), "utf-8"));
  }
  return Buffer.from(bytes);
}

const goStr = (str) => goBytes(wtf8(str));
const goHex = (h) => "0x" + h.toString(16).padStart(16, "0");

// ---- inputs ----------------------------------------------------------------

const uuid = "550e8400-e29b-41d4-a716-446655440000";

const normalizeInputs = [
  ["uuid", `id: ${uuid}`],
  ["uuid upper", "550E8400-E29B-41D4-A716-446655440000"],
  ["uuid mixed", "ref 550e8400-E29B-41d4-A716-446655440000."],
  ["uuid braces", `{${uuid}}`],
  ["uuid glued prefix", `x${uuid}`],
  ["uuid glued suffix", `${uuid}x`],
  ["uuid then underscore", `${uuid}_1`],
  ["uuid then dash number", `${uuid}-1234`],
  ["uuid short last group", "550e8400-e29b-41d4-a716-44665544000"],
  ["uuid after keyword", `msg-${uuid}`],
  ["date", "due 2024-01-15."],
  ["date time Z", "at 2024-01-15T10:30:00Z ok"],
  ["date time fraction", "2024-01-15T10:30:00.123456Z"],
  ["date time offset colon", "2024-01-15T10:30:00+05:30"],
  ["date time offset no colon", "2024-01-15T10:30:00-0800"],
  ["date time no zone", "2024-01-15T10:30:00 then"],
  ["lower t", "2024-01-15t10:30:00Z"],
  ["lower z", "2024-01-15T10:30:00z"],
  ["Z then letter", "2024-01-15T10:30:00Zabc"],
  ["offset then digit", "2024-01-15T10:30:00.5+05:301"],
  ["offset no colon then digit", "2024-01-15T10:30:00+05301"],
  ["short offset", "2024-01-15T10:30:00+05:3"],
  ["no seconds", "2024-01-15T10:30"],
  ["fraction no digits", "2024-01-15T10:30:00.Z"],
  ["five digit year", "20240-01-15"],
  ["one digit month", "2024-1-15"],
  ["date underscore", "2024-01-15_x"],
  ["date glued digit", "2024-01-150"],
  ["keyword then date", "ID-2024-01-15"],
  ["hex 16", "sha deadbeefdeadbeef"],
  ["hex 15", "deadbeefdeadbee"],
  ["hex upper", "DEADBEEFDEADBEEF0"],
  ["hex then g", "deadbeefdeadbeefg"],
  ["hex 64", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
  ["0x prefix", "0x1234567890abcdef"],
  ["16 digits are hex", "1234567890123456"],
  ["15 digits are a number", "123456789012345"],
  ["user_42", "user_42"],
  ["user-42", "user-42 done"],
  ["user42", "User42"],
  ["USER_42", "USER_42"],
  ["users", "list users"],
  ["identify", "identify the ids"],
  ["order-abc123", "order-abc123"],
  ["Order_ABC", "Order_ABC"],
  ["session then underscore", "session_x_1"],
  ["msg id", "msg_01XYZabc"],
  ["message", "message-9 messages"],
  ["chat", "chat123 chatcmpl-abc123"],
  ["thread", "thread_abc"],
  ["request id", "request-id request_id_7"],
  ["bare keywords", "user id order_ user_"],
  ["keyword inside word", "superuser_1"],
  ["keyword then dash word", "user-42-x user_42_x"],
  ["placeholder text", "<ID> ID_1 <NUM>"],
  ["long s", "u\u017fer_1 \u017fession_2"],
  ["kelvin", "id_\u212a id\u212a"],
  ["order #12345", "order #12345"],
  ["decimal", "pi is 3.14"],
  ["dotted", "3.14.15"],
  ["number then letter", "1.5a"],
  ["version", "v1.2"],
  ["thousands", "1,000"],
  ["negative", "-5"],
  ["ordinal", "42nd"],
  ["trailing dot", "1."],
  ["leading dot", ".5"],
  ["exponent", "1e10"],
  ["page", "page 42 of 100"],
  ["underscore number", "x_1"],
  ["fullwidth digits", "\uff11\uff12\uff13"],
  ["math digit", "\u{1d7d8}"],
  ["nbsp", "a\u00a0\u00a0b"],
  ["line separator", "a\u2028b"],
  ["bom", "\ufeffa\ufeffb\ufeff"],
  ["spaces tabs newlines", "  a \t\r\n b\v\fc  "],
  ["ideographic space", "a\u3000b"],
  ["not whitespace", "a\u0085b\u180ec\u200bd"],
  ["dotted capital I", "\u0130stanbul"],
  ["final sigma word", "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3"],
  ["sigma alone", "\u03a3"],
  ["sigma initial", "\u03a3\u0391"],
  ["sigma final then dot", "\u0391\u03a3."],
  ["sigma apostrophe", "\u0391\u03a3'\u0392"],
  ["sigma combining mark", "\u0391\u03a3\u0301"],
  ["sigma before bom", "\u0391\u03a3\ufeff\u0392"],
  ["sigma after digit", "1\u03a3"],
  ["sigma after lone surrogate", "\u0391\udc00\u03a3"],
  ["special lowercase", "\u1e9e \u2126 \u212a \u212b \u01c5 \u1f88 \u216b \u24b6 \uff21"],
  ["astral lowercase", "\u{10400}\u{1e900}"],
  ["unicode 16 lowercase", "\u1c89 \ua7cb \ua7dc \u{10d50}"],
  ["emoji", "\u{1f600} 2024-01-15 user_\u{1f600} 42\u{1f600}"],
  ["emoji word", "a\u{1f600}b 7"],
  ["lone surrogates", "\ud83d 42 \ude00x"],
  ["empty", ""],
  ["only spaces", " \u00a0\ufeff "],
  ["mixed", "Retry #3 for Order-ABC123 at 2024-01-15T10:30:00Z (trace 0123456789abcdef0123)"],
];

const simhashInputs = [
  "", "a", "ab", "abc", "abcd", "ABC", "  a  b  ", "a\u00a0b",
  "\u{1f600}", "a\u{1f600}", "\u{1f600}\u{1f600}", "\u0130", "\u0391\u03a3\ufeff\u0392",
  "\ud800", "x\ud800y",
  "hello world", "<num>", "order #<num>",
  "the quick brown fox jumps over the lazy dog",
  "The quick brown fox jumps over the lazy dog 42 times",
  "lorem ipsum ".repeat(100),
  "abcdefghijklmnopqrstuvwxyz".repeat(40),
];

// hashtext inputs are raw bytes (a response body): [name, hex or utf-8 string].
const hashTextInputs = [
  ["empty", ""],
  ["openai", '{"id":"chatcmpl-abc123","choices":[{"message":{"role":"assistant","content":"Order 12345 shipped at 2024-01-15T10:30:00Z"}}]}'],
  ["sse", 'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n'],
  ["truncated sequence", { hex: "61e2826261" }],
  ["encoded surrogate", { hex: "61eda08062" }],
  ["bom", { hex: "efbbbf7b7d" }],
];

// prompt and tool inputs are raw request bodies.
const promptInputs = [
  ["last user", '{"messages":[{"role":"system","content":"sys"},{"role":"user","content":"first"},{"role":"assistant","content":"a"},{"role":"user","content":"Hello 42"}]}'],
  ["content array ignored", '{"messages":[{"role":"user","content":"first"},{"role":"user","content":[{"type":"text","text":"second"}]}]}'],
  ["no user: last message", '{"messages":[{"role":"system","content":"s"},{"role":"assistant","content":"last"}]}'],
  ["no user: last is array", '{"messages":[{"role":"system","content":"s"},{"role":"assistant","content":[{"type":"text","text":"x"}]}]}'],
  ["no user: last content null", '{"messages":[{"role":"system","content":"s"},{"role":"assistant","content":null}]}'],
  ["only array contents", '{"messages":[{"role":"user","content":[{"type":"tool_result","content":"r"}]}]}'],
  ["empty messages beat prompt", '{"messages":[],"prompt":"p"}'],
  ["messages not array", '{"messages":"x","prompt":"p"}'],
  ["messages null", '{"messages":null,"input":"i"}'],
  ["prompt not string", '{"prompt":["a"],"input":"i"}'],
  ["empty prompt string", '{"prompt":"","input":"i"}'],
  ["input list ignored", '{"input":[{"role":"user","content":"x"}]}'],
  ["empty user content", '{"messages":[{"role":"user","content":"a"},{"role":"user","content":""}]}'],
  ["role is case sensitive", '{"messages":[{"role":"user","content":"u"},{"role":"User","content":"U"}]}'],
  ["content number", '{"messages":[{"role":"user","content":5}]}'],
  ["message is a string", '{"messages":["hello"]}'],
  ["duplicate content", '{"messages":[{"role":"user","content":"a","content":"b"}]}'],
  ["duplicate prompt", '{"prompt":"a","prompt":"b"}'],
  ["duplicate messages", '{"messages":[{"role":"user","content":"m"}],"messages":"x","prompt":"p"}'],
  ["null before user", '{"messages":[null,{"role":"user","content":"ok"}]}'],
  ["null after user", '{"messages":[{"role":"user","content":"ok"},null]}'],
  ["null body", "null"],
  ["array body", '[{"prompt":"x"}]'],
  ["string body", '"just text"'],
  ["escapes", '{"messages":[{"role":"us\\u0065r","content":"caf\\u00e9 \\ud83d\\ude00\\n\\t\\"q\\" \\/"}]}'],
  ["lone surrogate", '{"prompt":"a\\ud800b"}'],
  ["lone surrogate then escape", '{"prompt":"\\ud800\\u0041"}'],
  ["reversed pair", '{"prompt":"\\udc00\\ud800"}'],
  ["ill-formed bytes", { hex: Buffer.from('{"prompt":"a').toString("hex") + "e282" + Buffer.from('b"}').toString("hex") }],
  ["responses string input", '{"model":"m","input":"Summarize order 42"}'],
];

const toolInputs = [
  ["none", '{"messages":[]}'],
  ["functions", '{"functions":[{"name":"b"},{"name":"a","parameters":{}}]}'],
  ["tools", '{"tools":[{"type":"function","function":{"name":"search"}},{"type":"function","function":{"name":"read"}}]}'],
  ["openai tool_choice has no top-level name", '{"tool_choice":{"type":"function","function":{"name":"x"}}}'],
  ["anthropic tool_choice", '{"tool_choice":{"type":"tool","name":"get_weather"}}'],
  ["anthropic tools do not count", '{"tools":[{"name":"get_weather","input_schema":{}}]}'],
  ["duplicates kept", '{"functions":[{"name":"a"}],"tools":[{"type":"function","function":{"name":"a"}}],"tool_choice":{"name":"a"}}'],
  ["type must be function", '{"tools":[{"type":"Function","function":{"name":"a"}},{"function":{"name":"b"}},{"type":"function","name":"c"}]}'],
  ["empty names", '{"functions":[{"name":""}],"tools":[{"type":"function","function":{"name":""}}],"tool_choice":{"name":""}}'],
  ["functions names of any type", '{"functions":[{"name":null},{"name":true},{"name":false},{"name":0},{"name":{}},{"name":["a",null,["b",1]]},{"x":1},["name"],null,"name"]}'],
  ["tools names truthy only", '{"tools":[{"type":"function","function":{"name":0}},{"type":"function","function":{"name":-0}},{"type":"function","function":{"name":5}},{"type":"function","function":{"name":[]}},{"type":"function","function":{"name":{}}},{"type":"function","function":{"name":null}},{"type":"function","function":{"name":false}},{"type":"function","function":null},{"type":"function","function":"f"},null]}'],
  ["numbers", '{"functions":[{"name":1e21},{"name":1e20},{"name":0.1},{"name":-0},{"name":1.5e-7},{"name":0.000001},{"name":1e400},{"name":-1e400},{"name":123456789012345678901234},{"name":5e-324},{"name":1.7976931348623157e308},{"name":100},{"name":-2.50}]}'],
  ["utf-16 sort order", '{"functions":[{"name":"\\uff5e"},{"name":"\\ud83d\\ude00"},{"name":"a"},{"name":"B"},{"name":"\\u00e9"}]}'],
  ["tool_choice array or string", '{"tool_choice":["x"]}'],
  ["tool_choice string", '{"tool_choice":"auto"}'],
  ["tool_choice zero", '{"tool_choice":{"name":0}}'],
  ["functions object", '{"functions":{"name":"a"}}'],
  ["duplicate keys", '{"functions":[{"name":"a","name":"b"}],"tools":[{"type":"x","type":"function","function":{"name":"c"}}]}'],
  ["toString key throws", '{"functions":[{"name":{"toString":"x"}}]}'],
  ["nested toString key throws", '{"tools":[{"type":"function","function":{"name":[1,{"toString":1}]}}]}'],
  ["tool_choice toString throws", '{"tool_choice":{"name":{"toString":null,"valueOf":1}}}'],
  ["valueOf key alone is fine", '{"functions":[{"name":{"valueOf":1}}]}'],
  ["escaped toString key", '{"functions":[{"name":{"to\\u0053tring":1}}]}'],
  ["lone surrogate name", '{"functions":[{"name":"\\ud800"},{"name":"\\ud7ff"}]}'],
  ["array body", '[1]'],
];

// ---- output -------------------------------------------------------------------

function bodyBytes(x) {
  return typeof x === "string" ? Buffer.from(x, "utf-8") : Buffer.from(x.hex, "hex");
}

function run(mode) {
  switch (mode) {
    case "normalize":
      for (const [name, s] of normalizeInputs) console.log(`\t{${JSON.stringify(name)}, ${goStr(s)}, ${goStr(normalize(s))}},`);
      break;
    case "simhash":
      for (const s of simhashInputs) console.log(`\t{${goStr(s)}, ${goHex(simhash(s))}},`);
      break;
    case "hashtext":
      for (const [name, x] of hashTextInputs) {
        const b = bodyBytes(x);
        console.log(`\t{${JSON.stringify(name)}, ${goBytes(b)}, ${goHex(simhash(normalize(b.toString("utf-8"))))}},`);
      }
      break;
    case "prompt":
      for (const [name, x] of promptInputs) {
        const b = bodyBytes(x);
        const body = JSON.parse(b.toString("utf-8"));
        let p, skip = false;
        try { p = prompt(body); } catch (e) { skip = true; p = ""; }
        const hash = skip ? "0" : goHex(simhash(normalize(p)));
        console.log(`\t{${JSON.stringify(name)}, ${goBytes(b)}, ${skip ? '""' : goStr(p)}, ${hash}, ${skip}},`);
      }
      break;
    case "tools":
      for (const [name, x] of toolInputs) {
        const b = bodyBytes(x);
        const body = JSON.parse(b.toString("utf-8"));
        let sig, skip = false;
        try { sig = toolSignature(body); } catch (e) { skip = true; sig = ""; }
        console.log(`\t{${JSON.stringify(name)}, ${goBytes(b)}, ${goStr(sig)}, ${skip}},`);
      }
      break;
    case "captures":
      // Each line of the OpenHands logs holds the request's messages and
      // tools at the top level: treat the line as the request body, and the
      // whole line as a raw text for HashText.
      for (const f of ["claude-sonnet-4_fncall_session.jsonl", "deepseek-chat_nonfncall_session.jsonl"]) {
        const path = require("path").join(__dirname, "../../../../shared/captures/jsonl-openhands-sdk-llm-logs", f);
        const lines = require("fs").readFileSync(path).toString("utf-8").split("\n").filter(Boolean);
        lines.forEach((l, i) => {
          const body = JSON.parse(l);
          console.log(`\t{${JSON.stringify(f)}, ${i + 1}, ${goHex(simhash(normalize(prompt(body))))}, ${goStr(toolSignature(body))}, ${goHex(simhash(normalize(l)))}},`);
        });
      }
      break;
    case "unicode":
      writeUnicode();
      break;
    default:
      console.error("usage: node oracle.js normalize|simhash|hashtext|prompt|tools|unicode");
      process.exit(2);
  }
}

// writeUnicode records, for every code point, what Node's toLowerCase does
// with it alone and how it behaves around a capital sigma:
//   lower.txt      "CP: MAPPING..." for every code point that lowercases to something else;
//   sigma_cased.txt      ranges of code points c with (c + "Σ").toLowerCase() ending in "ς":
//                        cased and not case-ignorable;
//   sigma_ignorable.txt  ranges of the other code points c with ("A" + c + "Σ") ending in "ς":
//                        case-ignorable (skipped by the Final_Sigma scan).
function writeUnicode() {
  const fs = require("fs");
  const path = require("path");
  const dir = path.join(__dirname, "unicode");
  fs.mkdirSync(dir, { recursive: true });
  const lower = [], cased = [], ignorable = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const l = c.toLowerCase();
    if (l !== c) lower.push(`${hex(cp)}: ${Array.from(l, (x) => hex(x.codePointAt(0))).join(" ")}`);
    if ((c + "\u03a3").toLowerCase().endsWith("\u03c2")) cased.push(cp);
    else if (("A" + c + "\u03a3").toLowerCase().endsWith("\u03c2")) ignorable.push(cp);
  }
  const header = (what) => `# ${what}\n# Generated by testdata/oracle.js unicode with Node ${process.version} (ICU ${process.versions.icu}, Unicode ${process.versions.unicode}).\n`;
  fs.writeFileSync(path.join(dir, "lower.txt"), header("String.prototype.toLowerCase of each code point that changes: CP: MAPPING") + lower.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "sigma_cased.txt"), header("code points c with (c + U+03A3).toLowerCase() ending in U+03C2: cased, not case-ignorable") + ranges(cased).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "sigma_ignorable.txt"), header("other code points c with (\"A\" + c + U+03A3).toLowerCase() ending in U+03C2: case-ignorable") + ranges(ignorable).join("\n") + "\n");
}

const hex = (n) => n.toString(16).toUpperCase().padStart(4, "0");

function ranges(cps) {
  const r = [];
  for (const c of cps) {
    if (r.length && r[r.length - 1][1] === c - 1) r[r.length - 1][1] = c;
    else r.push([c, c]);
  }
  return r.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}..${hex(b)}`));
}

run(process.argv[2]);
