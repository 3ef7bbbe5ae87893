package ingest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/klauspost/compress/flate"
	gzip "github.com/klauspost/compress/gzip"
	"hash/crc32"
	"io"
	"runtime"
	"sync"
)

// A gzip file is a sequence of members, each a complete deflate stream.
// Inflating one stream is sequential, but separate members can be inflated
// at once when their boundaries are known without inflating: BGZF (the
// blocked gzip of bgzip, htslib, tabix) writes each member's size in a
// header subfield ("BC"). A plain multi-member gzip does not: its member
// boundaries could only be guessed by scanning for a header's bytes, which
// deflate data may contain, so it is inflated sequentially.

// bgzfMember returns the size of a member's header and its total size (the
// BC subfield's BSIZE + 1), when h starts a BGZF member; ok is false
// otherwise. h must hold the whole header (see bgzfPeek).
func bgzfMember(h []byte) (header, size int, ok bool) {
	const fextra = 1 << 2
	if len(h) < 12 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3]&^fextra != 0 || h[3]&fextra == 0 {
		return 0, 0, false // BGZF headers carry FEXTRA only: no name, comment or header CRC
	}
	xlen := int(binary.LittleEndian.Uint16(h[10:]))
	if len(h) < 12+xlen {
		return 0, 0, false
	}
	for x := h[12 : 12+xlen]; len(x) >= 4; {
		slen := int(binary.LittleEndian.Uint16(x[2:]))
		if len(x) < 4+slen {
			break
		}
		if x[0] == 'B' && x[1] == 'C' && slen == 2 {
			size = int(binary.LittleEndian.Uint16(x[4:])) + 1
			if size < 12+xlen+8 {
				return 0, 0, false
			}
			return 12 + xlen, size, true
		}
		x = x[4+slen:]
	}
	return 0, 0, false
}

// bgzfPeek returns the size of the BGZF member br's next bytes start
// (ok false when they do not start one).
func bgzfPeek(br *bufio.Reader) (size int, ok bool) {
	h, _ := br.Peek(12)
	if len(h) < 12 {
		return 0, false
	}
	h, _ = br.Peek(12 + int(binary.LittleEndian.Uint16(h[10:])))
	_, size, ok = bgzfMember(h)
	return size, ok
}

// IsBGZF reports whether head, a file's first bytes (at least 18 for the
// usual header), starts a BGZF member: a gzip file whose members are
// inflated in parallel.
func IsBGZF(head []byte) bool {
	_, _, ok := bgzfMember(head)
	return ok
}

// bgzfReader inflates a BGZF stream's members on several goroutines and
// reads them in order. A member that is not BGZF (a plain gzip appended)
// ends the parallel part: the rest is read by a sequential gzip reader.
type bgzfReader struct {
	queue chan *bgzfJob // in stream order
	stop  chan struct{}
	wg    sync.WaitGroup
	cur   *bgzfJob
	off   int
	err   error
}

// bgzfJob is one member, or (rest) the sequential remainder of the stream.
type bgzfJob struct {
	in   []byte
	out  []byte
	err  error
	done chan struct{}
	rest io.Reader
}

// maxBGZFBlock is the most a BGZF member holds (SAM/BAM specification,
// 4.1): a trailer claiming more is corrupt, not a reason to allocate it.
const maxBGZFBlock = 1 << 16

// blocks recycles the members' buffers (≤ 64 KiB in and out).
var blocks = sync.Pool{New: func() any { return new([maxBGZFBlock]byte) }}

func getBlock(n int) []byte { return blocks.Get().(*[maxBGZFBlock]byte)[:n] }

func putBlock(b []byte) {
	if cap(b) == maxBGZFBlock {
		blocks.Put((*[maxBGZFBlock]byte)(b[:maxBGZFBlock]))
	}
}

// bgzfAhead is how many members per worker are read ahead of the reader.
const bgzfAhead = 4

func newBGZFReader(br *bufio.Reader) *bgzfReader {
	workers := runtime.GOMAXPROCS(0)
	r := &bgzfReader{queue: make(chan *bgzfJob, bgzfAhead*workers), stop: make(chan struct{})}
	jobs := make(chan *bgzfJob, workers)
	for range workers {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			var fr io.ReadCloser
			for j := range jobs {
				j.out, j.err = inflateMember(j.in, &fr)
				putBlock(j.in)
				close(j.done)
			}
		}()
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(jobs)
		defer close(r.queue)
		for {
			j := &bgzfJob{done: make(chan struct{})}
			switch size, ok := bgzfPeek(br); {
			case !ok:
				if _, err := br.Peek(1); err == io.EOF {
					return
				}
				// Not BGZF (or a damaged header): the sequential reader
				// reads the rest, and reports what is wrong with it.
				zr, err := gzip.NewReader(br)
				if err != nil {
					j.err = gzipErr(err)
				} else {
					zr.Multistream(true)
					j.rest = zr
				}
				close(j.done)
			default:
				j.in = getBlock(size)
				if _, err := io.ReadFull(br, j.in); err != nil {
					j.err = io.ErrUnexpectedEOF
					close(j.done)
				} else {
					select {
					case jobs <- j:
					case <-r.stop:
						return
					}
				}
			}
			select {
			case r.queue <- j:
			case <-r.stop:
				return
			}
			if j.rest != nil || j.in == nil {
				return
			}
		}
	}()
	return r
}

// gzipErr maps the gzip reader's header errors to what namedReader reports.
func gzipErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// inflateMember inflates one BGZF member and checks its CRC and size; fr
// is the worker's inflater, reused.
func inflateMember(m []byte, fr *io.ReadCloser) ([]byte, error) {
	header, _, _ := bgzfMember(m)
	body, trailer := m[header:len(m)-8], m[len(m)-8:]
	crc, n := binary.LittleEndian.Uint32(trailer), binary.LittleEndian.Uint32(trailer[4:])
	if *fr == nil {
		*fr = flate.NewReader(bytes.NewReader(body))
	} else if err := (*fr).(flate.Resetter).Reset(bytes.NewReader(body), nil); err != nil {
		return nil, err
	}
	if n > maxBGZFBlock {
		return nil, fmt.Errorf("a BGZF member says it holds %d bytes, more than BGZF's 64 KiB", n)
	}
	out := getBlock(int(n))
	if _, err := io.ReadFull(*fr, out); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = gzip.ErrChecksum // the member inflates to fewer bytes than its trailer says
		}
		putBlock(out)
		return nil, err
	}
	var more [1]byte // the deflate stream must end there
	switch k, err := (*fr).Read(more[:]); {
	case k == 0 && err != nil && err != io.EOF:
		putBlock(out)
		return nil, err
	case k != 0 || err != io.EOF || crc32.ChecksumIEEE(out) != crc:
		putBlock(out)
		return nil, gzip.ErrChecksum
	}
	return out, nil
}

func (r *bgzfReader) Read(p []byte) (int, error) {
	for r.err == nil {
		if r.cur != nil && r.cur.rest != nil {
			return r.cur.rest.Read(p)
		}
		if r.cur != nil && r.off < len(r.cur.out) {
			k := copy(p, r.cur.out[r.off:])
			r.off += k
			return k, nil
		}
		j, ok := <-r.queue
		if !ok {
			r.err = io.EOF
			break
		}
		<-j.done
		if j.err != nil {
			r.err = j.err
			break
		}
		if r.cur != nil {
			putBlock(r.cur.out)
		}
		r.cur, r.off = j, 0
	}
	return 0, r.err
}

// Close stops the goroutines; the reader must not be used afterwards.
func (r *bgzfReader) Close() {
	close(r.stop)
	for range r.queue { // unblock the producer; members in flight finish
	}
	r.wg.Wait()
}
