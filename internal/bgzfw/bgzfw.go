// Package bgzfw writes BGZF (blocked gzip, as bgzip does) for tests and
// benchmarks: gzip members of at most 64 KB, each with its size in the
// header's BC subfield, then the empty end-of-file member.
package bgzfw

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
)

// Block is how many input bytes go into one member (bgzip's choice: the
// member stays under 64 KB even when the input does not compress).
const Block = 0xff00

// Write returns data as BGZF, block input bytes a member (≤ Block).
func Write(data []byte, block int) []byte {
	var out bytes.Buffer
	member := func(p []byte) {
		var m bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&m, gzip.DefaultCompression)
		zw.Header.Extra = []byte{'B', 'C', 2, 0, 0, 0}
		zw.Header.OS = 255
		zw.Write(p)
		zw.Close()
		b := m.Bytes()
		binary.LittleEndian.PutUint16(b[16:], uint16(len(b)-1)) // BSIZE: the member's size - 1
		out.Write(b)
	}
	for len(data) > 0 {
		n := min(block, len(data))
		member(data[:n])
		data = data[n:]
	}
	member(nil)
	return out.Bytes()
}
