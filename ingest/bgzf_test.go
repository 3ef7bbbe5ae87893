package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/bgzfw"
)

func lines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"agent":"a%d","request":{"messages":[{"role":"user","content":"line %d"}]}}`+"\n", i%97, i)
	}
	return b.Bytes()
}

func readAllDecompressed(t *testing.T, data []byte) ([]byte, error) {
	t.Helper()
	r, c, closeDec, err := Decompress(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer closeDec()
	if c != CompressionGzip {
		t.Fatalf("detected %v", c)
	}
	return io.ReadAll(r)
}

func plainGzip(p []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(p)
	zw.Close()
	return b.Bytes()
}

// TestBGZF: BGZF files read as their contents whatever the block size,
// with a plain gzip member appended too; IsBGZF tells them from plain gzip.
func TestBGZF(t *testing.T) {
	data := lines(20000) // ~1.5 MB: many members, more than the read-ahead
	for _, block := range []int{1, 1000, bgzfw.Block} {
		in := data
		if block == 1 {
			in = data[:3000] // 3000 members of one byte
		}
		z := bgzfw.Write(in, block)
		if !IsBGZF(z) || IsBGZF(plainGzip(in)) {
			t.Fatal("IsBGZF does not tell BGZF from plain gzip")
		}
		got, err := readAllDecompressed(t, z)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("block %d: %d bytes, want %d; %v", block, len(got), len(in), err)
		}
		got, err = readAllDecompressed(t, append(append([]byte{}, z...), plainGzip([]byte("tail\n"))...))
		if err != nil || string(got) != string(in)+"tail\n" {
			t.Fatalf("block %d with a plain member after: %d bytes; %v", block, len(got), err)
		}
	}
	if got, err := readAllDecompressed(t, bgzfw.Write(nil, bgzfw.Block)); err != nil || len(got) != 0 {
		t.Fatalf("empty BGZF: %q, %v", got, err)
	}
}

// TestBGZFDamaged: a cut, a corrupt byte or a wrong checksum is a read
// error naming gzip, never a short read that looks complete.
func TestBGZFDamaged(t *testing.T) {
	data := lines(5000)
	z := bgzfw.Write(data, 4096)
	flip := func(i int) []byte {
		d := append([]byte{}, z...)
		d[i] ^= 0x55
		return d
	}
	// the first member's deflate data, and its CRC (8 bytes before its end)
	first := int(z[16]) | int(z[17])<<8 + 1
	for name, tc := range map[string]struct {
		in   []byte
		want string
	}{
		"cut":        {z[:len(z)/2], "gzip stream is truncated"},
		"corrupt":    {flip(40), "gzip stream is corrupt"},
		"crc":        {flip(first - 8), "gzip: invalid checksum"},
		"size field": {flip(first - 3), "gzip stream is corrupt"},
	} {
		got, err := readAllDecompressed(t, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %d bytes read, error %v; want %q", name, len(got), err, tc.want)
		}
	}
}

// FuzzBGZF: whatever the bytes, the parallel reader never panics, and what
// it reads without error the sequential gzip reader reads too, the same.
func FuzzBGZF(f *testing.F) {
	small := lines(300)
	f.Add(bgzfw.Write(small, 1000))
	f.Add(bgzfw.Write(small[:10], 3))
	f.Add(bgzfw.Write(nil, bgzfw.Block))
	f.Add(append(bgzfw.Write(small[:100], 40), plainGzip([]byte("tail\n"))...))
	f.Add(bgzfw.Write(small, 1000)[:700])
	f.Fuzz(func(t *testing.T, data []byte) {
		if !IsBGZF(data) {
			return
		}
		got, err := readAllDecompressed(t, data)
		if err != nil {
			return
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("read %d bytes; the gzip reader refuses the header: %v", len(got), err)
		}
		want, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read %d bytes; the gzip reader %d, %v", len(got), len(want), err)
		}
	})
}
