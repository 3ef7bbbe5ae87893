package sweep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Spilling keeps a sweep's memory flat in requests: past a budget, the
// requests each agent packed since the last spill go to a SpillStore as
// one segment, and the agent keeps in memory only where its newest segment
// is. A segment is a 20-byte header — the offset and length of the
// agent's previous segment (0, 0 for its first) and the CRC-32C of the
// packed bytes — then the packed bytes, which continue the agent's byte
// string where the previous segment stopped. Reading an agent back follows its chain from the newest
// segment to the oldest, one ReadAt each, into one buffer filled from its
// end; the requests still in memory follow. The bytes are those an
// unspilled collection would hold, so results are identical.

// SpillStore is an append-only store of bytes that a sweep writes packed
// requests to past its memory budget and reads back, agent by agent, when
// it evaluates them. cmd/killswitch keeps it in a temporary file. The
// sweep calls it from one goroutine at a time.
type SpillStore interface {
	// Append stores p after everything appended before and returns the
	// offset of its first byte. It must not keep p.
	Append(p []byte) (off int64, err error)
	// ReadAt reads len(p) bytes appended earlier, from offset off, as
	// io.ReaderAt does; the sweep takes n < len(p) for an error.
	ReadAt(p []byte, off int64) (n int, err error)
}

// Spill says where collected requests go past a memory budget. The zero
// value never spills.
type Spill struct {
	// Store receives the packed requests past the budget; nil: never
	// spill, every request stays in memory (~27 bytes each).
	Store SpillStore
	// Budget is how many bytes of packed requests (the capacity of the
	// agents' buffers) stay in memory. Past it, every agent holding at
	// least MinSpillSegment bytes (or Budget, when smaller) writes them to
	// Store. With very many agents (MinSpillSegment each passes the
	// budget), what stays can exceed it: at most about half the budget
	// plus 2×MinSpillSegment+16 bytes an agent (TestSpillBudget).
	Budget int64
}

// DefaultSpillBudget is the budget cmd/killswitch gives a sweep
// (--spill-budget): 64 MiB of packed requests, about 2.5M requests, so
// that most captures never touch the disk.
const DefaultSpillBudget = 64 << 20

// MinSpillSegment is the fewest packed bytes an agent writes to the store
// at a time (unless the budget is smaller): segments cost a 20-byte header
// and one read each.
const MinSpillSegment = 256

const spillHeader = 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// spiller is a Traffic's spilling state.
type spiller struct {
	Spill
	held  int64 // capacity of the agents' packed buffers in memory
	limit int64 // spill when held passes it
	wbuf  []byte
	rbuf  []byte
}

// segment is where an agent's newest spilled segment is.
type segment struct {
	off, n int64 // n: packed bytes, header excluded; 0: none
}

// grew accounts for an agent's packed buffer changing capacity from before
// to now, and spills when the budget is passed.
func (s *spiller) grew(agents []*sweepTraffic, before, now int) error {
	s.held += int64(now - before)
	if s.Store == nil || s.held <= s.limit {
		return nil
	}
	return s.spill(agents)
}

// spill writes the packed tail of every agent holding enough of one.
func (s *spiller) spill(agents []*sweepTraffic) error {
	minSeg := min(MinSpillSegment, max(1, s.Budget))
	for _, a := range agents {
		if int64(len(a.packed)) < minSeg {
			continue
		}
		s.wbuf = binary.LittleEndian.AppendUint64(s.wbuf[:0], uint64(a.seg.off))
		s.wbuf = binary.LittleEndian.AppendUint64(s.wbuf, uint64(a.seg.n))
		s.wbuf = binary.LittleEndian.AppendUint32(s.wbuf, crc32.Checksum(a.packed, castagnoli))
		s.wbuf = append(s.wbuf, a.packed...)
		off, err := s.Store.Append(s.wbuf)
		if err != nil {
			return fmt.Errorf("spilling packed requests: %w", err)
		}
		a.seg = segment{off: off, n: int64(len(a.packed))}
		a.spilled += int64(len(a.packed))
		s.held -= int64(cap(a.packed))
		a.packed = nil
	}
	// The next spill waits for the budget, and for at least 16 new bytes
	// an agent, so that the scan over the agents stays cheap however many
	// hold less than a segment.
	s.limit = max(s.Budget, s.held+max(s.Budget/2, 16*int64(len(agents))))
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil
	}
	return nil
}

// packedBytes returns the agent's whole packed byte string: its spilled
// segments read back, then what is still in memory. The result is valid
// until the next call.
func (s *spiller) packedBytes(a *sweepTraffic) ([]byte, error) {
	if a.spilled == 0 {
		return a.packed, nil
	}
	total := spillHeader + a.spilled + int64(len(a.packed))
	if int64(cap(s.rbuf)) < total {
		s.rbuf = make([]byte, total)
	}
	buf := s.rbuf[:total]
	copy(buf[spillHeader+a.spilled:], a.packed)
	// Each segment is read with its header into the bytes before it,
	// which the previous (older) segment overwrites next.
	end, seg := spillHeader+a.spilled, a.seg
	for seg.n > 0 {
		start := end - seg.n - spillHeader
		if start < 0 {
			return nil, errSpillChain(a)
		}
		if n, err := s.Store.ReadAt(buf[start:end], seg.off); err != nil || n != int(end-start) {
			if err == nil {
				err = errors.New("short read")
			}
			return nil, fmt.Errorf("reading back the spilled requests of agent %q: %w", a.name, err)
		}
		end = start + spillHeader
		if crc32.Checksum(buf[end:end+seg.n], castagnoli) != binary.LittleEndian.Uint32(buf[start+16:]) {
			return nil, fmt.Errorf("reading back the spilled requests of agent %q: the bytes read are not those written (checksum)", a.name)
		}
		seg = segment{off: int64(binary.LittleEndian.Uint64(buf[start:])), n: int64(binary.LittleEndian.Uint64(buf[start+8:]))}
	}
	if end != spillHeader {
		return nil, errSpillChain(a)
	}
	if cap(s.rbuf) > 64<<20 {
		s.rbuf = nil // one big agent does not keep its buffer for the rest
	}
	return buf[spillHeader:], nil
}

func errSpillChain(a *sweepTraffic) error {
	return fmt.Errorf("reading back the spilled requests of agent %q: the segments do not add up to the %d bytes written", a.name, a.spilled)
}
