// Package pqtest helps tests damage Parquet files on purpose.
package pqtest

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// PatchPageHeader returns a copy of the valid file whose first data page
// header of column (in the first row group) has been rewritten by patch;
// the rest of the file is unchanged, so only that header lies.
func PatchPageHeader(t testing.TB, valid []byte, column string, patch func(h *format.PageHeader)) []byte {
	t.Helper()
	off := Chunk(t, valid, column).MetaData.DataPageOffset
	var proto thrift.CompactProtocol
	var h format.PageHeader
	pr := proto.NewReaderFromBytes(valid[off:])
	if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
		t.Fatal(err)
	}
	patch(&h)
	enc, err := thrift.Marshal(&proto, &h)
	if err != nil {
		t.Fatal(err)
	}
	d := bytes.Clone(valid[:off])
	d = append(d, enc...)
	return append(d, valid[off+int64(pr.BytesRead()):]...)
}

// Chunk returns the column chunk of column in the valid file's first row
// group.
func Chunk(t testing.TB, valid []byte, column string) format.ColumnChunk {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(valid), int64(len(valid)))
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range f.Metadata().RowGroups[0].Columns {
		if cc.MetaData.PathInSchema[0] == column {
			return cc
		}
	}
	t.Fatalf("no column %q", column)
	return format.ColumnChunk{}
}

// WithoutCRC returns the valid file rewritten with no page checksums (and
// no page indexes or Bloom filters, whose offsets it would have to move):
// the same rows, but a byte mutated inside a page now reaches the page
// decoders instead of failing the checksum, which is what a fuzz target
// seeded with it needs. Readers check a page's CRC only when it has one.
func WithoutCRC(t testing.TB, valid []byte) []byte {
	t.Helper()
	var proto thrift.CompactProtocol
	if len(valid) < 12 {
		t.Fatal("not a Parquet file")
	}
	n := int64(uint32(valid[len(valid)-8]) | uint32(valid[len(valid)-7])<<8 | uint32(valid[len(valid)-6])<<16 | uint32(valid[len(valid)-5])<<24)
	var meta format.FileMetaData
	if err := thrift.Unmarshal(&proto, valid[int64(len(valid))-8-n:len(valid)-8], &meta); err != nil {
		t.Fatal(err)
	}
	out := []byte("PAR1")
	for ri := range meta.RowGroups {
		rg := &meta.RowGroups[ri]
		rgStart := int64(len(out))
		for ci := range rg.Columns {
			cc := &rg.Columns[ci]
			md := &cc.MetaData
			start := md.DataPageOffset
			if d := md.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			moved := map[int64]int64{} // page offset → its offset in out
			chunkStart := int64(len(out))
			for off := start; off < start+md.TotalCompressedSize; {
				var h format.PageHeader
				pr := proto.NewReaderFromBytes(valid[off:])
				if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
					t.Fatal(err)
				}
				body := off + int64(pr.BytesRead())
				h.CRC = 0
				enc, err := thrift.Marshal(&proto, &h)
				if err != nil {
					t.Fatal(err)
				}
				moved[off] = int64(len(out))
				out = append(out, enc...)
				out = append(out, valid[body:body+int64(h.CompressedPageSize)]...)
				off = body + int64(h.CompressedPageSize)
			}
			md.DataPageOffset = moved[md.DataPageOffset]
			if md.DictionaryPageOffset > 0 {
				md.DictionaryPageOffset = moved[md.DictionaryPageOffset]
			}
			md.TotalCompressedSize = int64(len(out)) - chunkStart
			md.IndexPageOffset, md.BloomFilterOffset, md.BloomFilterLength = 0, 0, 0
			cc.FileOffset = chunkStart
			cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0, 0, 0
		}
		rg.FileOffset, rg.TotalCompressedSize = rgStart, int64(len(out))-rgStart
	}
	enc, err := thrift.Marshal(&proto, &meta)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, enc...)
	out = append(out, byte(len(enc)), byte(len(enc)>>8), byte(len(enc)>>16), byte(len(enc)>>24))
	return append(out, "PAR1"...)
}

// Write writes rows of any struct type with parquet-go's own writer: the
// files tests read are made by a writer independent of our readers.
func Write[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
