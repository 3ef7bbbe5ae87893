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
