package logs

import "bytes"

// Detect sniffs the format from the first bytes of a (decompressed) input:
// the names of the top-level members of its first JSON object (the first
// element when the input is a JSON array, the first element of the first
// element when it is an array of arrays), read as far as head goes. Give
// it at least the first 64 KiB when the input has them: a member is seen
// only when its name is inside head, and a large value before the
// deciding member hides it. The rules, in order:
//
//   - "resourceSpans" (or "resource_spans"): openinference when head
//     holds an "openinference.span.kind" attribute, else otel;
//   - "schemaType", "@message" (a CloudWatch Logs export) or a "results"
//     array (a Logs Insights query result), when head holds
//     "ModelInvocationLog": bedrock;
//   - a "context" object with "span_kind", or a "data" array when head
//     holds "span_kind" (a REST API page): phoenix;
//   - a "context" object with "start_time" or "kind", or "traceId" with
//     "duration" (the JavaScript exporter's fields): otel-console;
//   - "trace_id", "span_id" and "start" or "duration", in the first
//     object or the first object of the first array (traces of spans):
//     datadog;
//   - "run_type", or "post" / "patch" arrays when head holds "run_type"
//     (the SDK's batch payloads): langsmith;
//   - "spanContext" (or "_spanContext", as JSON.stringify writes an
//     OpenTelemetry JS span): vercel-ai;
//   - "observations", or a "trace" object: langfuse;
//   - "custom_id" with "params" or "result": anthropic-batch; with
//     anything else: openai-batch;
//   - "request" or "event", or "ts" with "agent": capture;
//   - "call_type", "response_cost" or "spend", or "startTime" with
//     "messages" or "model": litellm;
//   - "messages", "prompt" or "input", or "timestamp" with "response":
//     completion-log.
//
// ok is false when none applies (HAR, Parquet, a message list, not JSON).
// Detect never fails on any input and reads nothing past head.
func Detect(head []byte) (Format, bool) {
	if t := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n"); len(t) > 0 && t[0] == '[' {
		if in := bytes.TrimLeft(t[1:], " \t\r\n"); len(in) > 0 && in[0] == '[' {
			// An array of arrays: Datadog traces, or nothing known.
			if ddSpan(topKeys(in)) {
				return FormatDatadog, true
			}
			return "", false
		}
	}
	k := topKeys(head)
	if ddSpan(k) {
		return FormatDatadog, true
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := k[n]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("resourceSpans", "resource_spans"):
		if bytes.Contains(head, []byte(`"openinference.span.kind"`)) {
			return FormatOpenInference, true
		}
		return FormatOTel, true
	case (has("schemaType", "@message") || k["results"] == '[') && bytes.Contains(head, []byte("ModelInvocationLog")):
		return FormatBedrock, true
	case k["context"] == '{' && has("span_kind"), k["data"] == '[' && bytes.Contains(head, []byte(`"span_kind"`)):
		return FormatPhoenix, true
	case k["context"] == '{' && has("start_time", "kind"), has("traceId") && has("duration"):
		return FormatOTelConsole, true
	case has("run_type"), (k["post"] == '[' || k["patch"] == '[') && bytes.Contains(head, []byte(`"run_type"`)):
		return FormatLangSmith, true
	case has("spanContext", "_spanContext"):
		return FormatVercelAI, true
	case has("observations"), k["trace"] == '{':
		return FormatLangfuse, true
	case has("custom_id") && has("params", "result"):
		return FormatAnthropicBatch, true
	case has("custom_id"):
		return FormatOpenAIBatch, true
	case has("request", "event"), has("ts") && has("agent"):
		return FormatCapture, true
	case has("call_type", "response_cost", "spend"), has("startTime") && has("messages", "model"):
		return FormatLiteLLM, true
	case has("messages", "prompt", "input"), has("timestamp") && has("response"):
		return FormatCompletionLog, true
	}
	return "", false
}

// ddSpan reports whether the members k are a Datadog span's.
func ddSpan(k map[string]byte) bool {
	_, span := k["span_id"]
	_, trace := k["trace_id"]
	_, start := k["start"]
	_, dur := k["duration"]
	return span && trace && (start || dur)
}

// topKeys returns the member names of the first JSON object in b (or of
// the first element of a top-level array), each with the first byte of its
// value. It stops quietly where b ends or stops being JSON. Names are
// compared raw (escapes are not decoded: no format's names need them).
func topKeys(b []byte) map[string]byte {
	keys := map[string]byte{}
	eachTopKey(b, func(name string, first byte) { keys[name] = first })
	return keys
}

// keyOrder returns the member names topKeys finds, in document order,
// each once.
func keyOrder(b []byte) []string {
	var names []string
	seen := map[string]bool{}
	eachTopKey(b, func(name string, _ byte) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	})
	return names
}

// eachTopKey calls fn with each member name of the first JSON object in b
// (see topKeys) and the first byte of its value (0 when b ends first).
func eachTopKey(b []byte, fn func(name string, first byte)) {
	b = bytes.TrimPrefix(b, bom)
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == '[' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return
		}
		end, ok := scanString(b, i)
		if !ok {
			return
		}
		name := string(b[i+1 : end-1])
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			fn(name, 0)
			return
		}
		fn(name, b[i])
		end, ok = scanValue(b, i)
		if !ok {
			return
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

// scanString returns the index just past the JSON string at b[i] == '"'.
func scanString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// scanValue returns the index just past the JSON value at b[i]; nested
// values are only matched for brackets and strings.
func scanValue(b []byte, i int) (int, bool) {
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := scanString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return j, j > i && j < len(b)
}
