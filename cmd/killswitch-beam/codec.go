package main

// codec.go is how feature records cross the shuffle: many records of one
// file in one []byte (a batch), each record a few dozen bytes. Beam's own
// coders would encode a featRec field by field as a row (~330 bytes, one
// element per record, each handled by the runner); a batch is one element
// per file and shard, copied as bytes.
//
// A batch is a header (format version, the file's index in the inputs,
// whether the records are compressed) then records until the end. The
// records of a batch that carries bodies, or of compressAt bytes or more,
// are compressed (zstd, fastest level: request bodies of one file repeat
// their models, roles and instructions; feature records their agents'
// names, costs and counts); a small batch is not. A record is its flags,
// the deltas of its order (PMax, Idx, the file's request count) from the
// previous record's,
// its time as the distance back from PMax, references into the batch's
// string table (agent, position file and path, tool signature, messages)
// and only the fields its flags say it has. Hashes, cost and threshold are
// 8 bytes, fixed; counts are varints. A string is written once per batch:
// reference 0 is followed by the string and adds it to the table,
// reference n+1 is the table's n-th string. A body a policy's split
// replay keeps (policy.Splitter.Trim: the gateway's request, the
// breaker's error document) is its length and its bytes, never in the
// table.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// batchVersion begins every batch: a batch of another version (a worker of
// another build) is refused, not misread.
const batchVersion = 3

const (
	fControl = 1 << iota
	fHasTokens
	fHasCost
	fHasPrompt
	fHasResp
	fHasUsage
	fHasFeatErr
	fWarn
	fToolSig
	fSetEnabled
	fEnabled
	fSetWindow
	fSetThreshold
	fBy
	fPosPath
	fTenant
	fWorkflow
	fProvider
	fModel
	fEndpoint
	fNoStatus
	fDuration
	fReason
	fAPIKey
	fEntity
	fRequest
	fResponse
	fLast // the first flag not defined
)

// batchWriter encodes feature records of one file into a batch.
type batchWriter struct {
	buf     []byte // the header, then the records
	hdr     int    // the header's length; its last byte is the mode
	bodies  bool   // a record carries a body: the batch is compressed
	strs    map[string]uint64
	file    string // the last position file written, and its reference:
	fileRef uint64 // every record of a file names it, so the map is skipped
	n       int    // records written
	prevMax int64
	prevIdx int64
	prevReq int64
}

func newBatchWriter(file int) *batchWriter {
	w := &batchWriter{strs: make(map[string]uint64, 256), buf: make([]byte, 0, batchBytes+4<<10)}
	w.buf = append(binary.AppendUvarint(append(w.buf, batchVersion), uint64(file)), modeRaw)
	w.hdr = len(w.buf)
	return w
}

// sent readies w for its file's next batch once b, what bytes returned,
// has been sent: the string table keeps its room (a batch of the short
// corpus names ~2,500 agents), and the buffer is kept unless b is the
// buffer itself (a small batch crosses uncompressed, as it is).
func (w *batchWriter) sent(b []byte) {
	if len(b) > 0 && &b[0] == &w.buf[0] {
		w.buf = append(make([]byte, 0, cap(w.buf)), w.buf[:w.hdr]...)
	}
	w.buf = w.buf[:w.hdr]
	clear(w.strs)
	w.file, w.fileRef = "", 0
	w.bodies, w.n = false, 0
	w.prevMax, w.prevIdx, w.prevReq = 0, 0, 0
}

// Batch modes: how the records follow the header.
const (
	modeRaw  = 0
	modeZstd = 1
)

var (
	// A 256 KB window covers a whole batch; the encoder's default (8 MB)
	// was 8 MB of history held by a worker for the rest of its run.
	zstdEnc = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(256<<10), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic("killswitch-beam: zstd encoder: " + err.Error()) // fixed options: a programming error
		}
		return e
	})
	zstdDec = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBatchRecords))
		if err != nil {
			panic("killswitch-beam: zstd decoder: " + err.Error())
		}
		return d
	})
)

// maxBatchRecords bounds a compressed batch's records once decompressed: a
// batch is sent at batchBytes, so only a record with a body this large
// (one request of a gigabyte) reaches it.
const maxBatchRecords = 1 << 30

// compressAt is the size of records from which a batch crosses compressed
// even without bodies: on the in-process runner every byte that crosses
// is copied several times into fresh memory, which costs more than
// compressing it (the short corpus's 3.0 MB of feature batches: 13 MB
// less peak RSS; docs/beam.md).
const compressAt = 4 << 10

// bytes returns the batch as it crosses the shuffle.
func (w *batchWriter) bytes() []byte {
	if !w.bodies && len(w.buf)-w.hdr < compressAt {
		return w.buf
	}
	out := append(make([]byte, 0, w.hdr+len(w.buf[w.hdr:])/3), w.buf[:w.hdr]...)
	out[w.hdr-1] = modeZstd
	return zstdEnc().EncodeAll(w.buf[w.hdr:], out)
}

func (w *batchWriter) uvarint(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }
func (w *batchWriter) varint(v int64)   { w.buf = binary.AppendVarint(w.buf, v) }
func (w *batchWriter) fixed(v uint64)   { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// str writes s: its reference, or 0 and s. It returns the reference s
// has from then on.
func (w *batchWriter) str(s string) uint64 {
	if ref, ok := w.strs[s]; ok {
		w.uvarint(ref)
		return ref
	}
	ref := uint64(len(w.strs) + 1)
	w.strs[s] = ref
	w.uvarint(0)
	w.uvarint(uint64(len(s)))
	w.buf = append(w.buf, s...)
	return ref
}

// posFile writes a record's position file as str does, without the
// map's lookup when it is the previous record's (as it nearly always is:
// a batch holds one file's records).
func (w *batchWriter) posFile(s string) {
	if w.fileRef != 0 && s == w.file {
		w.uvarint(w.fileRef)
		return
	}
	w.file, w.fileRef = s, w.str(s)
}

// add appends fr, which follows the batch's previous record in its file.
func (w *batchWriter) add(fr *featRec) {
	var flags uint64
	set := func(f uint64, on bool) {
		if on {
			flags |= f
		}
	}
	set(fControl, fr.Control)
	set(fHasTokens, fr.HasTokens)
	set(fHasCost, fr.HasCost)
	set(fHasPrompt, fr.HasPrompt)
	set(fHasResp, fr.HasResp)
	set(fHasUsage, fr.HasUsage)
	set(fHasFeatErr, fr.HasFeatErr)
	set(fWarn, fr.Warn != "")
	set(fToolSig, fr.ToolSig != "")
	set(fSetEnabled, fr.SetEnabled)
	set(fEnabled, fr.Enabled)
	set(fSetWindow, fr.SetWindow)
	set(fSetThreshold, fr.SetThreshold)
	set(fBy, fr.By != "")
	set(fPosPath, fr.Pos.Path != "")
	set(fTenant, fr.Tenant != "")
	set(fWorkflow, fr.Workflow != "")
	set(fProvider, fr.Provider != "")
	set(fModel, fr.Model != "")
	set(fEndpoint, fr.Endpoint != "")
	set(fNoStatus, fr.NoStatus)
	set(fDuration, fr.Duration != 0)
	set(fReason, fr.Reason != "")
	set(fAPIKey, fr.APIKeyID != "")
	set(fEntity, fr.Entity != "")
	set(fRequest, len(fr.ReqBody) > 0)
	set(fResponse, len(fr.RespBody) > 0)
	w.uvarint(flags)
	w.varint(fr.PMax - w.prevMax)
	w.varint(fr.Idx - w.prevIdx)
	w.varint(fr.Req - w.prevReq)
	w.prevMax, w.prevIdx, w.prevReq = fr.PMax, fr.Idx, fr.Req
	w.varint(fr.PMax - fr.TS)
	w.str(fr.Agent)
	w.posFile(fr.Pos.File)
	w.uvarint(uint64(fr.Pos.Kind))
	w.varint(fr.Pos.N)
	if fr.Pos.Path != "" {
		w.str(fr.Pos.Path)
	}
	w.varint(int64(fr.Status))
	w.uvarint(uint64(fr.Label))
	for _, o := range [...]struct {
		on bool
		s  string
	}{{fr.Tenant != "", fr.Tenant}, {fr.Workflow != "", fr.Workflow}, {fr.Provider != "", fr.Provider},
		{fr.Model != "", fr.Model}, {fr.Endpoint != "", fr.Endpoint}, {fr.Reason != "", fr.Reason},
		{fr.APIKeyID != "", fr.APIKeyID}, {fr.Entity != "", fr.Entity}} {
		if o.on {
			w.str(o.s)
		}
	}
	for _, b := range [...][]byte{fr.ReqBody, fr.RespBody} {
		if len(b) > 0 {
			w.bodies = true
			w.uvarint(uint64(len(b)))
			w.buf = append(w.buf, b...)
		}
	}
	if fr.Duration != 0 {
		w.varint(fr.Duration)
	}
	if fr.HasTokens {
		w.varint(fr.TokensIn)
		w.varint(fr.TokensOut)
	}
	if fr.HasCost {
		w.fixed(math.Float64bits(fr.CostUSD))
	}
	if fr.Control {
		w.uvarint(uint64(fr.Event))
		if fr.By != "" {
			w.str(fr.By)
		}
		if fr.SetWindow {
			w.varint(int64(fr.Window))
		}
		if fr.SetThreshold {
			w.fixed(math.Float64bits(fr.Threshold))
		}
	} else {
		if fr.HasPrompt {
			w.fixed(uint64(fr.Prompt))
		}
		if fr.HasResp {
			w.fixed(uint64(fr.Response))
		}
		if fr.ToolSig != "" {
			w.str(fr.ToolSig)
		}
		if fr.HasUsage {
			w.varint(fr.UsageIn)
			w.varint(fr.UsageOut)
		}
		if fr.HasFeatErr {
			w.str(fr.FeatErr)
		}
		if fr.Warn != "" {
			w.str(fr.Warn)
		}
	}
	w.n++
}

// errBatch is the error of a batch that does not decode: a programming
// error or a worker of another build, never the user's input.
var errBatch = errors.New("feature batch does not decode")

// batchReader decodes a batch.
type batchReader struct {
	b       []byte
	err     error
	strs    []string
	file    int
	prevMax int64
	prevIdx int64
	prevReq int64
}

func newBatchReader(b []byte) *batchReader {
	r := &batchReader{b: b}
	if len(b) == 0 || b[0] != batchVersion {
		r.fail("version")
		return r
	}
	r.b = b[1:]
	file := r.uvarint()
	if file > math.MaxInt32 {
		r.fail("file index")
	}
	r.file = int(file)
	if len(r.b) == 0 {
		r.fail("mode")
		return r
	}
	mode := r.b[0]
	r.b = r.b[1:]
	switch mode {
	case modeRaw:
	case modeZstd:
		recs, err := zstdDec().DecodeAll(r.b, nil)
		if err != nil {
			r.fail("zstd: " + err.Error())
			return r
		}
		r.b = recs
	default:
		r.fail("mode")
	}
	return r
}

func (r *batchReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errBatch, what)
	}
	r.b = nil
}

func (r *batchReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *batchReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *batchReader) fixed() uint64 {
	if len(r.b) < 8 {
		r.fail("short")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// bytes returns a body: its length, then its bytes (in the batch, not
// copied: a body is used while the batch is).
func (r *batchReader) bytes() []byte {
	n := r.uvarint()
	if n == 0 || n > uint64(len(r.b)) { // a body is written only when it is not empty
		r.fail("body length")
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *batchReader) str() string {
	ref := r.uvarint()
	if ref > 0 {
		if ref > uint64(len(r.strs)) {
			r.fail("string reference")
			return ""
		}
		return r.strs[ref-1]
	}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("string length")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	r.strs = append(r.strs, s)
	return s
}

// next decodes the next record into fr; false at the end of the batch or
// on an error (Err).
func (r *batchReader) next(fr *featRec) bool {
	if len(r.b) == 0 || r.err != nil {
		return false
	}
	*fr = featRec{File: r.file}
	flags := r.uvarint()
	if flags >= fLast {
		r.fail("flags")
		return false
	}
	has := func(f uint64) bool { return flags&f != 0 }
	r.prevMax += r.varint()
	r.prevIdx += r.varint()
	r.prevReq += r.varint()
	fr.PMax, fr.Idx, fr.Req = r.prevMax, r.prevIdx, r.prevReq
	fr.TS = fr.PMax - r.varint()
	fr.Agent = r.str()
	fr.Pos.File = r.str()
	fr.Pos.Kind = int(r.uvarint() & 0xff)
	fr.Pos.N = r.varint()
	if has(fPosPath) {
		fr.Pos.Path = r.str()
	}
	fr.Status = int(r.varint())
	fr.Label = int(r.uvarint() & 0xff)
	for _, o := range [...]struct {
		f uint64
		s *string
	}{{fTenant, &fr.Tenant}, {fWorkflow, &fr.Workflow}, {fProvider, &fr.Provider},
		{fModel, &fr.Model}, {fEndpoint, &fr.Endpoint}, {fReason, &fr.Reason},
		{fAPIKey, &fr.APIKeyID}, {fEntity, &fr.Entity}} {
		if has(o.f) {
			*o.s = r.str()
		}
	}
	for _, o := range [...]struct {
		f uint64
		b *[]byte
	}{{fRequest, &fr.ReqBody}, {fResponse, &fr.RespBody}} {
		if has(o.f) {
			*o.b = r.bytes()
		}
	}
	fr.NoStatus = has(fNoStatus)
	if has(fDuration) {
		fr.Duration = r.varint()
	}
	fr.HasTokens, fr.HasCost = has(fHasTokens), has(fHasCost)
	if fr.HasTokens {
		fr.TokensIn, fr.TokensOut = r.varint(), r.varint()
	}
	if fr.HasCost {
		fr.CostUSD = math.Float64frombits(r.fixed())
	}
	if fr.Control = has(fControl); fr.Control {
		fr.Event = int(r.uvarint() & 0xff)
		if has(fBy) {
			fr.By = r.str()
		}
		fr.SetEnabled, fr.Enabled = has(fSetEnabled), has(fEnabled)
		if fr.SetWindow = has(fSetWindow); fr.SetWindow {
			fr.Window = int(r.varint())
		}
		if fr.SetThreshold = has(fSetThreshold); fr.SetThreshold {
			fr.Threshold = math.Float64frombits(r.fixed())
		}
	} else {
		if fr.HasPrompt = has(fHasPrompt); fr.HasPrompt {
			fr.Prompt = int64(r.fixed())
		}
		if fr.HasResp = has(fHasResp); fr.HasResp {
			fr.Response = int64(r.fixed())
		}
		if has(fToolSig) {
			fr.ToolSig = r.str()
		}
		if fr.HasUsage = has(fHasUsage); fr.HasUsage {
			fr.UsageIn, fr.UsageOut = r.varint(), r.varint()
		}
		if fr.HasFeatErr = has(fHasFeatErr); fr.HasFeatErr {
			fr.FeatErr = r.str()
		}
		if has(fWarn) {
			fr.Warn = r.str()
		}
	}
	return r.err == nil
}

// Err is the batch's decoding error, if any.
func (r *batchReader) Err() error { return r.err }

// batchMerge reads the records of several batches in replay order (PMax,
// file, index). Each batch is in that order already (a file's records, in
// the file's order), so the merge holds one decoded record per batch.
type batchMerge struct {
	heads []*batchHead // a heap by replay order
	err   error
}

type batchHead struct {
	r  *batchReader
	fr featRec
}

func newBatchMerge(batches [][]byte) *batchMerge {
	m := &batchMerge{}
	for _, b := range batches {
		h := &batchHead{r: newBatchReader(b)}
		if h.r.next(&h.fr) {
			m.heads = append(m.heads, h)
		} else if err := h.r.Err(); err != nil && m.err == nil {
			m.err = err
		}
	}
	for i := len(m.heads)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m
}

func (m *batchMerge) less(i, j int) bool { return m.heads[i].fr.less(&m.heads[j].fr) }

func (m *batchMerge) down(i int) {
	n := len(m.heads)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && m.less(c+1, c) {
			c++
		}
		if !m.less(c, i) {
			return
		}
		m.heads[i], m.heads[c] = m.heads[c], m.heads[i]
		i = c
	}
}

// next copies the next record in replay order into fr; false at the end
// or on an error (Err).
func (m *batchMerge) next(fr *featRec) bool {
	if len(m.heads) == 0 || m.err != nil {
		return false
	}
	h := m.heads[0]
	*fr = h.fr
	if !h.r.next(&h.fr) {
		if err := h.r.Err(); err != nil {
			m.err = err
			return false
		}
		last := len(m.heads) - 1
		m.heads[0] = m.heads[last]
		m.heads = m.heads[:last]
	}
	m.down(0)
	return true
}

// Err is the first decoding error of the merged batches.
func (m *batchMerge) Err() error { return m.err }

// collectBatches returns the batches of an iterable.
func collectBatches(batches func(*[]byte) bool) [][]byte {
	var all [][]byte
	var b []byte
	for batches(&b) {
		all = append(all, b)
	}
	return all
}
