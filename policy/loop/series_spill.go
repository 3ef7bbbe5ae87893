package loop

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/internal/outfile"
	"github.com/killswitch/killswitch/report"
)

// seriesSpill keeps every request's chart point of a replay that cannot
// be read twice (standard input, a pipe) in a temporary file, not in
// memory: the HTML page charts 100 agents chosen only at the end, and a
// capture of a million agents would otherwise hold a point per request
// and an entry per agent. The file holds one record per decision: the
// agent (length and bytes), score and threshold (float64 bits), window
// and action; once the replay is over, one sequential read keeps the
// points of the charted agents. The file is a scratchFile: nothing is
// left behind however the run ends.
type seriesSpill struct {
	f   *outfile.Scratch
	w   *bufio.Writer
	buf []byte
	n   int64 // records written
}

// spillPrefix names the temporary files in os.TempDir (TMPDIR).
const spillPrefix = "killswitch-series-*"

func newSeriesSpill() (*seriesSpill, error) {
	f, err := outfile.CreateScratch("", spillPrefix)
	if err != nil {
		return nil, fmt.Errorf("cannot keep the chart scores in a temporary file in %s: %w (set TMPDIR to a writable directory)", os.TempDir(), outfile.UnwrapPath(err))
	}
	return &seriesSpill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// hooks adds to h a decision hook that writes each decision's point,
// after h's own.
func (s *seriesSpill) hooks(h analyze.Hooks) analyze.Hooks {
	next := h.Decision
	h.Decision = func(d *analyze.Decision) error {
		if next != nil {
			if err := next(d); err != nil {
				return err
			}
		}
		return s.add(d)
	}
	return h
}

func (s *seriesSpill) add(d *analyze.Decision) error {
	b := binary.AppendUvarint(s.buf[:0], uint64(len(d.Agent)))
	b = append(b, d.Agent...)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Score))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Threshold))
	b = binary.AppendUvarint(b, uint64(d.Window))
	b = append(b, byte(d.Action))
	s.buf = b
	s.n++
	if _, err := s.w.Write(b); err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *seriesSpill) fail(err error) error {
	return fmt.Errorf("cannot keep the chart scores in a temporary file in %s: %w", os.TempDir(), outfile.UnwrapPath(err))
}

// collect reads the points back and returns those of the agents the page
// of sum charts.
func (s *seriesSpill) collect(sum *analyze.Summary) (*analyze.SeriesCollector, error) {
	if err := s.w.Flush(); err != nil {
		return nil, s.fail(err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, s.fail(err)
	}
	keep := map[string]bool{}
	for _, a := range report.ChartedAgents(sum) {
		keep[a] = true
	}
	col := analyze.NewSeriesCollector()
	r := bufio.NewReaderSize(s.f, 1<<20)
	var name []byte
	for i := int64(0); i < s.n; i++ {
		n, err := binary.ReadUvarint(r)
		if err == nil && n > 1<<30 {
			err = errors.New("corrupt record")
		}
		if err == nil {
			if uint64(cap(name)) < n {
				name = make([]byte, n)
			}
			name = name[:n]
			_, err = io.ReadFull(r, name)
		}
		var fixed [16]byte
		if err == nil {
			_, err = io.ReadFull(r, fixed[:])
		}
		var window uint64
		if err == nil {
			window, err = binary.ReadUvarint(r)
		}
		var action byte
		if err == nil {
			action, err = r.ReadByte()
		}
		if err != nil {
			return nil, s.fail(fmt.Errorf("reading record %d of %d back: %w", i+1, s.n, err))
		}
		if !keep[string(name)] {
			continue
		}
		d := analyze.Decision{
			Agent:     string(name),
			Score:     math.Float64frombits(binary.LittleEndian.Uint64(fixed[:8])),
			Threshold: math.Float64frombits(binary.LittleEndian.Uint64(fixed[8:])),
			Window:    int(window),
			Action:    analyze.Action(action),
		}
		if err := col.Decision(&d); err != nil {
			return nil, err
		}
	}
	return col, nil
}

// close closes and removes the file.
func (s *seriesSpill) close() { s.f.Close() }
