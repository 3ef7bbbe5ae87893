package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// A Format is one input format Open can read: its name, the file name
// extensions it goes by, how to recognise its content and how to read it.
// Formats are registered with Register, once, before the first Open (the
// package ingest/formats registers every format killswitch reads).
type Format struct {
	// Name is what --input-format calls the format and what inspect shows.
	Name string
	// Extensions are the file name extensions of the format, lower case
	// with the dot (".har"), as they come before any compression extension
	// ("day1.har.zst"). A file so named is read as this format without
	// looking at its content; for the Fallback format they only say that
	// the file is meant to be read as it when nothing else claims it.
	Extensions []string
	// Sniff reports whether head is this format's content: head is the
	// start of the decompressed content, SniffLen bytes or all of it when
	// shorter. Sniffers are tried in registration order and the first to
	// claim head decides, so a narrow sniffer goes before a broad one
	// (HAR's, a first member "log", before the JSON log formats', which
	// look at every member name). Nil: the format is read only when named
	// (--input-format).
	Sniff func(head []byte) bool
	// Fallback, set on one format at most, makes it the format of content
	// that no extension and no sniffer claimed (JSONL: its bad lines are
	// then reported one by one). It returns nil when it reads head, or why
	// it does not: Open then refuses the file with that reason. It is not
	// asked about a file named with one of Extensions.
	Fallback func(head []byte) error
	// Open returns the reader of f (f.Content is positioned at the start
	// of the decompressed content). The reader may hold f's resources
	// until f.Close; register anything else to release with f.OnClose.
	Open func(f *File) (Reader, error)
}

// A FormatNamer is a Reader that names what it found more precisely than
// the format it was opened as (a Parquet file holding OpenInference spans:
// "openinference (parquet)"); Open reports the name in File.Format.
type FormatNamer interface {
	FormatName() string
}

// SniffLen is how much of the decompressed content Sniff sees: 64 KiB, so
// that a large value before the deciding key (a Langfuse trace's input
// before its observations) does not hide it.
const SniffLen = 1 << 16

// registry holds the registered formats in registration order.
var registry []*Format

// Register adds a format. It panics when the name is taken, when a second
// format sets Fallback, or when Open is nil: those are programming errors
// found by the first run.
func Register(f Format) {
	if f.Name == "" || f.Open == nil {
		panic("ingest: Register: a format needs a Name and an Open")
	}
	for _, g := range registry {
		if g.Name == f.Name {
			panic("ingest: Register: format " + f.Name + " registered twice")
		}
		if g.Fallback != nil && f.Fallback != nil {
			panic("ingest: Register: two fallback formats, " + g.Name + " and " + f.Name)
		}
	}
	registry = append(registry, &f)
}

// Lookup returns the registered format called name.
func Lookup(name string) (*Format, bool) {
	for _, f := range registry {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// listed returns the registered formats in the order they are listed to
// users: the fallback format first (what detection ends at), then the
// others in registration order.
func listed() []*Format {
	out := make([]*Format, 0, len(registry))
	for _, f := range registry {
		if f.Fallback != nil {
			out = append(out, f)
		}
	}
	for _, f := range registry {
		if f.Fallback == nil {
			out = append(out, f)
		}
	}
	return out
}

// FormatNames lists what --input-format accepts, comma-separated: "auto",
// then every format's name (the fallback format first, then registration
// order).
func FormatNames() string {
	names := []string{"auto"}
	for _, f := range listed() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// CompressionExtensions are the file name extensions of the compressed
// containers Decompress reads (it detects them by content, whatever the
// name).
var CompressionExtensions = []string{".gz", ".zst", ".zstd", ".zlib"}

// Extensions lists the extensions of every registered format, in the
// order FormatNames lists the formats.
func Extensions() []string {
	var exts []string
	for _, f := range listed() {
		exts = append(exts, f.Extensions...)
	}
	return exts
}

// Stem is a file's base name without its format and compression
// extensions: "day1" for "logs/day1.jsonl.zst". A ".json" extension goes
// too: JSON documents of any format are named so.
func Stem(path string) string {
	base := filepath.Base(path)
	for {
		ext := filepath.Ext(base)
		lower := strings.ToLower(ext)
		if ext == "" || !(lower == ".json" || slices.Contains(CompressionExtensions, lower) || slices.Contains(Extensions(), lower)) {
			return base
		}
		base = strings.TrimSuffix(base, ext)
	}
}

// Options says how Open reads a capture. The zero value detects the format
// and takes every agent id from the content.
type Options struct {
	// Format is a registered format's name; "" or "auto" detects it.
	Format string
	// Agent, when set, is the agent id of every record.
	Agent string
	// AgentHeader is the HAR request header holding the agent id; "" is
	// the HAR reader's default.
	AgentHeader string
	// PerFile qualifies every agent id with the file's Stem (agent@day1),
	// for captures whose agent ids are not unique across files.
	PerFile bool
	// Map renames Parquet columns, as field=column pairs (the --map flag);
	// they are parsed, and may be wrong, only when the file is Parquet.
	Map []string
	// BatchOutput is a Batch API output (results) file to join with the
	// input on custom_id.
	BatchOutput string
	// Stdin is read for the path "-" by Open; nil: os.Stdin.
	Stdin io.Reader
	// Count, when set, counts the bytes read from the file (compressed),
	// for a progress line.
	Count *atomic.Int64
	// MaxLine is the longest JSONL line kept (0: DefaultMaxLine).
	MaxLine int
}

// A File is one capture opened by Open. Its Reader yields the records;
// Close releases what it holds.
type File struct {
	Reader
	// Path is the path given to Open ("-" is standard input), or the name
	// given to OpenReader; Name is what positions call the file: Path, or
	// "<stdin>".
	Path, Name string
	// Format is the format's name: detected, or as Options.Format named
	// it, or as the reader names its content (FormatNamer).
	Format string
	// Compression is the container the content came in.
	Compression Compression
	// BGZF: a gzip file whose members say their sizes (BGZF), so that
	// they are inflated in parallel; any other gzip is inflated on one
	// core.
	BGZF bool
	// Content is the decompressed content, buffered (for Format.Open).
	Content io.Reader
	// At reads the content at offsets (from its start, Size bytes) when
	// the input gives random access and is not compressed (see
	// OpenReader); else nil. Reading it does not move Content.
	At   io.ReaderAt
	Size int64
	// Options are those given to Open.
	Options Options

	closers []func()
}

// OnClose registers fn to run on Close, before what was registered earlier.
func (f *File) OnClose(fn func()) { f.closers = append(f.closers, fn) }

// Close releases the file, its decoders and whatever the reader registered.
func (f *File) Close() {
	for i := len(f.closers) - 1; i >= 0; i-- {
		f.closers[i]()
	}
	f.closers = nil
}

// Open opens path ("-" is Options.Stdin) and reads it as OpenReader does,
// naming it path in positions ("<stdin>" for "-"); File.Path is path.
func Open(path string, opt Options) (*File, error) {
	if path == "-" {
		src := opt.Stdin
		if src == nil {
			src = os.Stdin
		}
		return openReader(path, "<stdin>", src, opt, nil)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		fh.Close()
		return nil, fmt.Errorf("%s is a directory", path)
	}
	return openReader(path, path, fh, opt, func() { fh.Close() })
}

// OpenReader returns the records' reader of the capture r holds,
// compressed (gzip, zstd, zlib) or not, in the format Options.Format names
// or else the one detected, in this order:
//
//  1. a format whose Extensions hold name's extension (after compression
//     extensions), the Fallback format's excepted;
//  2. the first format, in registration order, whose Sniff claims the
//     start of the content;
//  3. the Fallback format, when name carries one of its extensions or
//     its Fallback accepts the content; else OpenReader fails with its
//     reason.
//
// name is what positions and messages call the input (a path, "<stdin>",
// an object's key); it need not name a file. When r gives random access
// to uncompressed content (it is an io.ReaderAt and an io.Seeker: a
// regular *os.File, a *bytes.Reader, an *io.SectionReader), File.At
// reads it at offsets from r's current offset, so that the formats that
// need it (Parquet) or gain from it (JSON documents, read in two passes)
// need not spool or hold it; any other reader is read once, forward. The
// records are the same either way. Options.Stdin is not used. Close
// releases the decoders and what the reader holds; it does not close r.
func OpenReader(name string, r io.Reader, opt Options) (*File, error) {
	return openReader(name, name, r, opt, nil)
}

// openReader is OpenReader with File.Path set to path; closeSrc, when
// set, closes src, last, on Close (or at once when it fails).
func openReader(path, name string, src io.Reader, opt Options, closeSrc func()) (*File, error) {
	f := &File{Path: path, Name: name, Options: opt}
	if closeSrc != nil {
		f.OnClose(closeSrc)
	}
	at, size := randomAccess(src)
	if opt.Count != nil {
		src = countingReader{src, opt.Count}
	}
	r, comp, closeDec, err := Decompress(src)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	f.OnClose(closeDec)
	if nr, ok := r.(*namedReader); ok {
		_, f.BGZF = nr.r.(*bgzfReader)
	}
	if _, ok := r.(*bufio.Reader); !ok {
		r = bufio.NewReaderSize(r, SniffLen)
	}
	f.Content, f.Compression = r, comp
	if comp == CompressionNone && at != nil {
		f.At, f.Size = at, size
	}
	format, err := f.format(opt.Format)
	if err != nil {
		f.Close()
		return nil, err
	}
	f.Format = opt.Format
	if f.Format == "" || f.Format == "auto" {
		f.Format = format.Name
	}
	if f.Reader, err = format.Open(f); err != nil {
		f.Close()
		return nil, err
	}
	if n, ok := f.Reader.(FormatNamer); ok {
		f.Format = n.FormatName()
	}
	if opt.PerFile {
		f.Reader = perFileReader{f.Reader, "@" + Stem(f.Name)}
	}
	return f, nil
}

// randomAccess returns r's content from its current offset on, read at
// offsets, and its size, when r is an io.ReaderAt and an io.Seeker (a
// regular file's, when r is an *os.File: a pipe or a terminal is read
// forward); else nil. r is left at the offset it was at.
func randomAccess(r io.Reader) (io.ReaderAt, int64) {
	ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	})
	if !ok {
		return nil, 0
	}
	if fh, ok := r.(*os.File); ok {
		if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
			return nil, 0
		}
	}
	off, err := ra.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0
	}
	end, err := ra.Seek(0, io.SeekEnd)
	if _, err2 := ra.Seek(off, io.SeekStart); err != nil || err2 != nil || end < off {
		return nil, 0
	}
	return io.NewSectionReader(ra, off, end-off), end - off
}

// format returns the format named, or detects it.
func (f *File) format(name string) (*Format, error) {
	if name != "" && name != "auto" {
		format, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("%s: input format %q is not supported (want %s)", f.Name, name, FormatNames())
		}
		return format, nil
	}
	ext := formatExt(f.Path)
	var fallback *Format
	for _, format := range registry {
		if format.Fallback != nil {
			fallback = format
		} else if slices.Contains(format.Extensions, ext) {
			return format, nil
		}
	}
	head, readErr := f.Content.(*bufio.Reader).Peek(SniffLen)
	for _, format := range registry {
		if format.Sniff != nil && format.Sniff(head) {
			return format, nil
		}
	}
	if readErr != nil && readErr != io.EOF && readErr != bufio.ErrBufferFull {
		// What could be read is no format, and reading stopped early (a
		// truncated or corrupt compressed stream): say that, not that
		// the first bytes are of no format.
		return nil, fmt.Errorf("%s:%d: %w", f.Name, bytes.Count(head, []byte{'\n'})+1, readErr)
	}
	if fallback == nil {
		return nil, fmt.Errorf("%s: not a capture format killswitch reads", f.Name)
	}
	if !slices.Contains(fallback.Extensions, ext) {
		if err := fallback.Fallback(head); err != nil {
			return nil, fmt.Errorf("%s: not a capture format killswitch reads: %v; --input-format forces one of %s", f.Name, err, FormatNames())
		}
	}
	return fallback, nil
}

// formatExt is the lower-cased extension of path once the compression
// extensions are taken off (each once, in CompressionExtensions' order):
// ".har" for "x.HAR.gz".
func formatExt(path string) string {
	base := strings.ToLower(filepath.Base(path))
	for _, ext := range CompressionExtensions {
		base = strings.TrimSuffix(base, ext)
	}
	return filepath.Ext(base)
}

// countingReader counts the bytes read, for progress.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// perFileReader qualifies each record's agent id with a suffix (agent@file).
type perFileReader struct {
	Reader
	suffix string
}

func (p perFileReader) Record() *Record {
	rec := p.Reader.Record()
	if rec.Err == nil && rec.Skip == "" {
		rec.Agent += p.suffix
	}
	return rec
}
