package pq

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// Format registers Parquet with ingest.Open: files named .parquet or .pq,
// or content that starts with the magic "PAR1".
var Format = ingest.Format{
	Name:       "parquet",
	Extensions: []string{".parquet", ".pq"},
	Sniff:      func(head []byte) bool { return bytes.HasPrefix(head, []byte("PAR1")) },
	Open:       open,
}

// open reads a Parquet capture in the layout of SPEC §3.
func open(f *ingest.File) (ingest.Reader, error) {
	ra, size, err := Access(f)
	if err != nil {
		return nil, err
	}
	return OpenCapture(f, ra, size)
}

// Access gives random access to a Parquet file opened by ingest.Open or
// ingest.OpenReader, which Parquet needs: content the input gives at
// offsets (ingest.File.At: a regular file, uncompressed) is read in place;
// any other (standard input, a pipe, a compressed file) is first spooled
// to a temporary file, closed and removed on f.Close.
func Access(f *ingest.File) (io.ReaderAt, int64, error) {
	if f.At != nil {
		return f.At, f.Size, nil
	}
	fh, err := os.CreateTemp("", "killswitch-*.parquet")
	if err != nil {
		return nil, 0, err
	}
	f.OnClose(func() { fh.Close(); os.Remove(fh.Name()) })
	if _, err := io.Copy(fh, f.Content); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", f.Name, err)
	}
	st, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	return fh, st.Size(), nil
}

// OpenCapture reads the capture records of the Parquet file ra (size
// bytes, from Access) with f's options (--map, --agent).
func OpenCapture(f *ingest.File, ra io.ReaderAt, size int64) (ingest.Reader, error) {
	m, err := columnMap(f.Options.Map)
	if err != nil {
		return nil, err
	}
	pr, err := NewReader(ra, size, f.Name, Options{Map: m, Agent: f.Options.Agent})
	if err != nil {
		return nil, err
	}
	f.OnClose(func() { pr.Close() })
	return pr, nil
}

// columnMap parses field=column pairs (the --map flag).
func columnMap(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range pairs {
		field, col, ok := strings.Cut(kv, "=")
		if !ok || field == "" || col == "" {
			return nil, fmt.Errorf("--map %q: want field=column", kv)
		}
		m[field] = col
	}
	return m, nil
}
