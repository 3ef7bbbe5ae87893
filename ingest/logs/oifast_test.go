package logs

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/killswitch/killswitch/internal/tracegen"
)

// TestOIFastApplies holds the column decoder to the tables it is for:
// tracegen's (Phoenix's layout, flat attributes, message lists with tool
// calls), the paged table (dictionary and plain columns, tiny pages and
// row groups), the fixture; and keeps it off a table with a column it
// does not read (a token-count group, a number as a message's content).
func TestOIFastApplies(t *testing.T) {
	var gen bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&gen, traceSpans()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		data []byte
		want bool
	}{
		{"tracegen", gen.Bytes(), true},
		{"paged", pagedParquet(t, 128, 40), true},
		{"fixture", traceFixture("phoenix-spans.parquet"), true},
		{"message shapes", msgParquet(t), false},
		{"nested attributes", nestedParquet(t), false},
	} {
		f := openOIFast(bytes.NewReader(c.data), int64(len(c.data)), "t.parquet", keepFull)
		if got := f != nil; got != c.want {
			t.Errorf("%s: decoder %v, want %v", c.what, got, c.want)
		}
		if f == nil {
			continue
		}
		rows := 0
		for {
			if _, ok := f.next(); !ok {
				break
			}
			rows++
		}
		if err, weird := f.stopped(); err != nil || weird || rows == 0 {
			t.Errorf("%s: decoder read %d rows and stopped: %v, weird %v", c.what, rows, err, weird)
		}
		f.close()
	}
}

// TestOIFastDamaged reads damaged copies of the tables the column decoder
// reads (bytes flipped through the pages, the file cut short) as the
// reference reads them: where the decoder stops, the generic path reads
// the row and every row after it as it always did.
func TestOIFastDamaged(t *testing.T) {
	var gen bytes.Buffer
	spans, _ := generatedTraces()
	if err := tracegen.OpenInferenceParquet(&gen, spans); err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{gen.Bytes(), pagedParquet(t, 128, 40), pagedParquet(t, 0, 0)} {
		for k := range 40 {
			d := bytes.Clone(data)
			pos := 4 + (k*7919)%(len(d)-12)
			switch k % 4 {
			case 0:
				d[pos] ^= 0xff
			case 1:
				d[pos] = 0xff // a byte no UTF-8 text holds
			case 2:
				d[pos] ^= 0x01
			case 3:
				d[pos], d[pos+1] = 0x80, 0x80
			}
			t.Run(fmt.Sprintf("%d@%d", len(d), pos), func(t *testing.T) { sameParquetRecords(t, d) })
		}
	}
}
