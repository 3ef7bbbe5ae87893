package ingest

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	gzip "github.com/klauspost/compress/gzip"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Compression names a container detected by its magic bytes.
type Compression uint8

const (
	CompressionNone Compression = iota
	CompressionGzip
	CompressionZstd
	CompressionZlib
)

func (c Compression) String() string {
	switch c {
	case CompressionGzip:
		return "gzip"
	case CompressionZstd:
		return "zstd"
	case CompressionZlib:
		return "zlib"
	}
	return "none"
}

// DetectCompression sniffs the first bytes of a stream.
func DetectCompression(head []byte) Compression {
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return CompressionGzip
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return CompressionZstd
	case len(head) >= 2 && head[0] == 0x78 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 &&
		(head[1] == 0x01 || head[1] == 0x5e || head[1] == 0x9c || head[1] == 0xda):
		return CompressionZlib
	}
	return CompressionNone
}

// Decompress wraps r so that gzip, zstd and zlib streams (detected by magic
// bytes, whatever the file name) read as their contents. A truncated or
// corrupt compressed stream surfaces as a read error naming the container.
// The returned closer releases decoder resources (it does not close r).
func Decompress(r io.Reader) (io.Reader, Compression, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4)
	c := DetectCompression(head)
	switch c {
	case CompressionGzip:
		if _, ok := bgzfPeek(br); ok {
			zr := newBGZFReader(br)
			return &namedReader{r: zr, name: "gzip"}, c, zr.Close, nil
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, c, nil, fmt.Errorf("gzip: %w", err)
		}
		zr.Multistream(true)
		return &namedReader{r: zr, name: "gzip"}, c, func() { zr.Close() }, nil
	case CompressionZstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, c, nil, fmt.Errorf("zstd: %w", err)
		}
		return &namedReader{r: zr, name: "zstd"}, c, zr.Close, nil
	case CompressionZlib:
		zr, err := zlib.NewReader(br)
		if err != nil {
			return nil, c, nil, fmt.Errorf("zlib: %w", err)
		}
		return &namedReader{r: zr, name: "zlib"}, c, func() { zr.Close() }, nil
	}
	return br, c, func() {}, nil
}

// namedReader prefixes decoder errors with the container name and where
// in the content they struck, and turns an unexpected EOF inside the
// container into a clear "truncated" error: "gzip stream is truncated
// after 11427 bytes of content: unexpected EOF".
type namedReader struct {
	r    io.Reader
	name string
	n    int64 // content bytes delivered so far
}

func (n *namedReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	n.n += int64(k)
	if err != nil && err != io.EOF {
		what := "corrupt"
		if err == io.ErrUnexpectedEOF {
			what = "truncated"
		}
		err = fmt.Errorf("%s stream is %s after %d bytes of content: %w", n.name, what, n.n, err)
	}
	return k, err
}
