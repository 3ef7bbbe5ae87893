package pqtest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	ID   int64   `parquet:"id"`
	Name string  `parquet:"name,dict"`
	Note *string `parquet:"note,optional"`
}

func readRows(data []byte) ([]row, error) {
	return parquet.Read[row](bytes.NewReader(data), int64(len(data)))
}

// TestWithoutCRC: the rewritten file has the same rows in several row
// groups and pages (dictionary pages included), its pages carry no CRC,
// and a flipped byte inside a page is no longer a checksum error.
func TestWithoutCRC(t *testing.T) {
	var rows []row
	for i := range 3000 {
		r := row{ID: int64(i), Name: fmt.Sprintf("name-%d", i%7)}
		if i%3 == 0 {
			s := fmt.Sprintf("note %d", i)
			r.Note = &s
		}
		rows = append(rows, r)
	}
	valid := Write(t, rows, parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(1000),
		parquet.Compression(&parquet.Uncompressed))
	stripped := WithoutCRC(t, valid)
	got, err := readRows(stripped)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatal("the rewritten file reads other rows")
	}
	f, err := parquet.OpenFile(bytes.NewReader(stripped), int64(len(stripped)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Metadata().RowGroups); n != 3 {
		t.Fatalf("%d row groups, want 3", n)
	}
	// The first data page of column id in both files: its first value
	// byte (the pages are uncompressed PLAIN int64s after the levels, so
	// the last byte of the page is a value's high byte).
	flip := func(data []byte) error {
		c := Chunk(t, data, "id")
		end := c.MetaData.DataPageOffset + c.MetaData.TotalCompressedSize
		if c.MetaData.DictionaryPageOffset > 0 {
			t.Fatal("column id has a dictionary")
		}
		d := bytes.Clone(data)
		d[end-1] ^= 0x40
		_, err := readRows(d)
		return err
	}
	if err := flip(valid); !errors.Is(err, parquet.ErrCorrupted) {
		t.Errorf("a flipped byte in a page with a CRC: %v, want a checksum error", err)
	}
	if err := flip(stripped); err != nil {
		t.Errorf("a flipped byte in a page without a CRC: %v, want a changed value", err)
	}
}
