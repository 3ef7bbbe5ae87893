package logs

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// benchInputs are synthetic inputs of each format with about 1000 calls
// and a growing conversation, as agents write them.
func benchInputs() map[Format]string {
	var lite, lf, ot, batch strings.Builder
	var history []string
	var obs, spans []string
	for i := range 1000 {
		n := strconv.Itoa(i)
		history = append(history, `{"role":"user","content":"step `+n+`: check the order status again please"}`)
		if len(history) > 20 {
			history = history[1:]
		}
		msgs := "[" + strings.Join(history, ",") + "]"
		lite.WriteString(payload(`"id":"c` + n + `","agent_id":"a","response_cost":0.001,"prompt_tokens":100,"completion_tokens":20`))
		lite.WriteByte('\n')
		obs = append(obs, gen(strconv.Itoa(i%10), msgs, `{"role":"assistant","content":"order `+n+` is pending"}`))
		obs = append(obs, `{"type":"SPAN","startTime":"2025-01-01T00:00:00Z"}`)
		spans = append(spans, otlpSpan("s"+n, "", "chat", "0"+strconv.Itoa(i%10), []string{
			sa("gen_ai.operation.name", "chat"), sa("gen_ai.request.model", "m"), sa("gen_ai.input.messages", msgs),
			sa("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"pending"}]}]`)}, ""))
		batch.WriteString(oaReq("r"+n, ""))
		batch.WriteByte('\n')
	}
	lf.WriteString(trace(`,"sessionId":"s"`, obs...))
	ot.WriteString(otlpDoc(nil, spans...))
	return map[Format]string{FormatLiteLLM: lite.String(), FormatLangfuse: lf.String(), FormatOTel: ot.String(), FormatOpenAIBatch: batch.String()}
}

func BenchmarkReaders(b *testing.B) {
	inputs := benchInputs()
	for _, f := range []Format{FormatLiteLLM, FormatLangfuse, FormatOTel, FormatOpenAIBatch} {
		in := []byte(inputs[f])
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			records := 0
			for b.Loop() {
				r, _ := NewReader(bytes.NewReader(in), "bench", f, Options{})
				for r.Scan() {
					records++
				}
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

func BenchmarkDetect(b *testing.B) {
	head := []byte(benchInputs()[FormatLangfuse][:4096])
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		Detect(head)
	}
}
