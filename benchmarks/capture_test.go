// Package benchmarks measures killswitch's throughput: MB/s and records/s
// for each stage and for a whole replay. Run with `make bench`.
package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

var vocab = strings.Fields(`the a to of and in is that for it on with as this be are was by at or from
account address answer archive audit balance batch billing branch budget build cache calendar
campaign cancel capture carrier catalog change channel chart checkout claim client cluster column
comment commit compare config contract copy coupon credit customer dashboard database deadline
delivery deploy design device discount draft driver email error estimate event export feature
filter finance folder forecast format gateway graph guide health history import incident index
invoice issue journal kernel label ledger license limit listing locale login manifest margin
market memo merge metric migrate mobile module monitor network notice office order owner package
parcel partner patch payment payroll pipeline planner policy portal preview pricing printer
profile project query quota receipt record refund region release render report request review`)

func prose(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if rng.IntN(12) == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[rng.IntN(len(vocab))])
		if rng.IntN(25) == 0 {
			fmt.Fprintf(&b, " #%d", rng.IntN(100000))
		}
	}
	return b.String()
}

// chatCapture returns n capture records (JSONL) of OpenAI chat traffic from
// 50 agents: a 1.5 KB system prompt, a history of up to 8 earlier turns, a
// last user message of 100–400 words, a response of 60–200 words with
// usage. Every fifth agent loops (repeats its prompt and answer).
// Deterministic.
func chatCapture(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	system := prose(rng, 250)
	t0 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	type hist struct{ msgs []map[string]string }
	agents := make([]hist, 50)
	loopPrompt := prose(rng, 120)
	loopAnswer := prose(rng, 80)
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		a := i % len(agents)
		prompt, answer := prose(rng, 100+rng.IntN(300)), prose(rng, 60+rng.IntN(140))
		if a%5 == 0 {
			prompt, answer = loopPrompt, loopAnswer
		}
		h := &agents[a]
		msgs := []any{map[string]string{"role": "system", "content": system}}
		for _, m := range h.msgs {
			msgs = append(msgs, m)
		}
		msgs = append(msgs, map[string]string{"role": "user", "content": prompt})
		rec := map[string]any{
			"ts":      t0.Add(time.Duration(i) * 100 * time.Millisecond).Format(time.RFC3339Nano),
			"agent":   fmt.Sprintf("agent-%02d", a),
			"request": map[string]any{"model": "gpt-4o-mini", "messages": msgs},
			"response": map[string]any{"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion",
				"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
				"usage":   map[string]int{"prompt_tokens": 500, "completion_tokens": 100}},
			"cost_usd": 0.0002,
		}
		line, _ := json.Marshal(rec)
		buf.Write(line)
		buf.WriteByte('\n')
		h.msgs = append(h.msgs, map[string]string{"role": "user", "content": prompt}, map[string]string{"role": "assistant", "content": answer})
		if len(h.msgs) > 16 {
			h.msgs = h.msgs[2:]
		}
	}
	return buf.Bytes()
}
