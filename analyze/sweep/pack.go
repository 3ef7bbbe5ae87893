package sweep

import (
	"encoding/binary"
	"math"
	"slices"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Collected requests are packed: an agent's requests are one byte string
// of variable-length records, each field written only when it is not the
// usual value and numbers as deltas from the agent's previous request, so
// that a sweep holds 20–40 bytes per request rather than a 200-byte
// struct, and past a budget none (spill.go: they go to a spill store). A
// sweep unpacks one agent at a time into sweepReq structs, evaluates it
// at every setting and lets the structs go.
//
// A record: a uvarint of flags, then the seq delta (uvarint), the time
// (seconds delta as a varint, nanoseconds as a uvarint, or milliseconds
// when pkMillis), the position's number delta less the seq delta (varint:
// 0 when both advance alike, as lines and requests of a JSONL file do), and the optional fields the flags announce, in
// this order: position template index, status, tokens in and out, cost,
// tool-call signature index, fingerprint time, prompt hash, response hash.
const (
	// The usual flags, in the first byte of the varint.
	pkHasPrompt = 1 << iota
	pkHasResp
	pkPrompt
	pkResponse
	pkHasTokens
	pkTokens
	pkTool
	// Rarer ones.
	pkHasCost
	pkCostValue
	pkSkip
	pkStatus
	pkEntryTS
	pkPosTmpl
	pkMillis            // the time's nanoseconds are whole milliseconds, written as such
	pkLabelShift = iota // the label, in the bits from here
)

// packer holds what the packed records of a Traffic share: position
// templates (file, kind, path; the number is per record) and interned
// tool-call signatures.
type packer struct {
	tmpls   []ingest.Pos
	tmplIdx map[ingest.Pos]int
	tools   []string
	toolIdx map[string]int
	buf     [binary.MaxVarintLen64]byte
}

func (p *packer) tmpl(pos ingest.Pos) int {
	pos.N = 0
	if i, ok := p.tmplIdx[pos]; ok {
		return i
	}
	if p.tmplIdx == nil {
		p.tmplIdx = map[ingest.Pos]int{}
	}
	p.tmplIdx[pos] = len(p.tmpls)
	p.tmpls = append(p.tmpls, pos)
	return len(p.tmpls) - 1
}

func (p *packer) tool(s string) int {
	if i, ok := p.toolIdx[s]; ok {
		return i
	}
	if p.toolIdx == nil {
		p.toolIdx = map[string]int{}
	}
	p.toolIdx[s] = len(p.tools)
	p.tools = append(p.tools, s)
	return len(p.tools) - 1
}

// packState is the previous request of an agent: the base of the deltas.
type packState struct {
	seq  int64
	sec  int64
	n    int64
	tmpl int
}

// add packs r after the agent's previous request.
func (p *packer) add(a *sweepTraffic, r *sweepReq) {
	st := &a.last
	var fl uint64
	set := func(bit uint64, on bool) {
		if on {
			fl |= bit
		}
	}
	set(pkHasPrompt, r.HasPrompt)
	set(pkHasResp, r.HasResp)
	set(pkHasTokens, r.hasTokens)
	set(pkHasCost, r.hasCost)
	set(pkSkip, r.skip)
	set(pkTool, r.ToolSig != "")
	set(pkPrompt, r.Prompt != 0)
	set(pkResponse, r.Response != 0)
	set(pkTokens, r.tokensIn != 0 || r.tokensOut != 0)
	set(pkCostValue, r.cost != 0)
	set(pkStatus, r.status != 200)
	set(pkEntryTS, r.TS != r.ts.UnixNano())
	tmpl := p.tmpl(r.pos)
	set(pkPosTmpl, a.n == 0 || tmpl != st.tmpl)
	ns := uint64(r.ts.Nanosecond())
	set(pkMillis, ns%1e6 == 0)
	fl |= uint64(r.label) << pkLabelShift
	b := binary.AppendUvarint(a.packed, fl)
	b = binary.AppendUvarint(b, uint64(r.seq-st.seq))
	b = binary.AppendVarint(b, r.ts.Unix()-st.sec)
	if fl&pkMillis != 0 {
		ns /= 1e6
	}
	b = binary.AppendUvarint(b, ns)
	b = binary.AppendVarint(b, (r.pos.N-st.n)-(r.seq-st.seq))
	if fl&pkPosTmpl != 0 {
		b = binary.AppendUvarint(b, uint64(tmpl))
	}
	if fl&pkStatus != 0 {
		b = binary.AppendVarint(b, int64(r.status))
	}
	if fl&pkTokens != 0 {
		b = binary.AppendVarint(b, r.tokensIn)
		b = binary.AppendVarint(b, r.tokensOut)
	}
	if fl&pkCostValue != 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.cost))
	}
	if fl&pkTool != 0 {
		b = binary.AppendUvarint(b, uint64(p.tool(r.ToolSig)))
	}
	if fl&pkEntryTS != 0 {
		b = binary.AppendVarint(b, r.TS)
	}
	if fl&pkPrompt != 0 {
		b = binary.LittleEndian.AppendUint64(b, r.Prompt)
	}
	if fl&pkResponse != 0 {
		b = binary.LittleEndian.AppendUint64(b, r.Response)
	}
	a.packed = b
	*st = packState{seq: r.seq, sec: r.ts.Unix(), n: r.pos.N, tmpl: tmpl}
	if r.ext != nil && a.ext == nil {
		a.ext = make([]any, a.n, a.n+1)
	}
	if a.ext != nil {
		a.ext = append(a.ext, r.ext)
	}
	a.n++
}

// unpack returns the agent's requests, packed in b (its whole byte
// string, spilled segments included), in reqs's storage (grown as needed).
func (p *packer) unpack(a *sweepTraffic, b []byte, reqs []sweepReq) []sweepReq {
	reqs = slices.Grow(reqs[:0], a.n)
	var st packState
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		b = b[n:]
		return v
	}
	u64 := func() uint64 {
		v := binary.LittleEndian.Uint64(b)
		b = b[8:]
		return v
	}
	for i := 0; i < a.n; i++ {
		fl := uv()
		var r sweepReq
		dseq := int64(uv())
		r.seq = st.seq + dseq
		st.seq = r.seq
		st.sec += sv()
		ns := int64(uv())
		if fl&pkMillis != 0 {
			ns *= 1e6
		}
		r.ts = time.Unix(st.sec, ns).UTC()
		st.n += sv() + dseq
		if fl&pkPosTmpl != 0 {
			st.tmpl = int(uv())
		}
		r.pos = p.tmpls[st.tmpl]
		r.pos.N = st.n
		r.status = 200
		if fl&pkStatus != 0 {
			r.status = int32(sv())
		}
		if fl&pkTokens != 0 {
			r.tokensIn, r.tokensOut = sv(), sv()
		}
		if fl&pkCostValue != 0 {
			r.cost = math.Float64frombits(u64())
		}
		if fl&pkTool != 0 {
			r.ToolSig = p.tools[uv()]
		}
		r.TS = r.ts.UnixNano()
		if fl&pkEntryTS != 0 {
			r.TS = sv()
		}
		if fl&pkPrompt != 0 {
			r.Prompt = u64()
		}
		if fl&pkResponse != 0 {
			r.Response = u64()
		}
		r.HasPrompt, r.HasResp = fl&pkHasPrompt != 0, fl&pkHasResp != 0
		r.hasTokens, r.hasCost, r.skip = fl&pkHasTokens != 0, fl&pkHasCost != 0, fl&pkSkip != 0
		r.label = ingest.Label(fl >> pkLabelShift)
		if a.ext != nil {
			r.ext = a.ext[i]
		}
		reqs = append(reqs, r)
	}
	return reqs
}
