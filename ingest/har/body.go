package har

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/killswitch/killswitch/ingest"
	"github.com/klauspost/compress/zstd"
)

// decodeBody returns the body text a client received, from a HAR text
// member (a JSON string, or Polly.JS's array of base64 chunks), its
// encoding ("" or "utf8": the text itself; "base64") and the message's
// Content-Encoding header.
//
// HAR 1.2 says text is already decompressed, and DevTools and mitmproxy
// keep the Content-Encoding header all the same; Polly.JS stores the
// still-compressed bytes. So the bytes are decompressed per the header only
// when they do not already read as text; without a header, gzip and zstd
// are recognised by their magic bytes. The result must be UTF-8. The caller
// owns the returned slice; nil means no body.
func decodeBody(text json.RawMessage, encoding, contentEncoding string, r *Reader) ([]byte, error) {
	b, err := bodyBytes(text, encoding)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	if !readsAsText(b) {
		if b, err = r.decompress(b, contentEncoding); err != nil {
			return nil, err
		}
	}
	if off := invalidUTF8(b); off >= 0 {
		return nil, fmt.Errorf("not UTF-8 text: invalid UTF-8 at byte %d", off+1)
	}
	return b, nil
}

// bodyBytes undoes the HAR-level encoding of text.
func bodyBytes(text json.RawMessage, encoding string) ([]byte, error) {
	t := bytes.TrimSpace(text)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	var chunks []string
	switch t[0] {
	case '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, err
		}
		if !strings.EqualFold(encoding, "base64") {
			switch strings.ToLower(encoding) {
			case "", "utf8", "utf-8":
				return []byte(s), nil
			}
			return nil, fmt.Errorf("unsupported content encoding %q", truncate(encoding, 32))
		}
		if !strings.HasPrefix(strings.TrimSpace(s), "[") {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("base64: %v", err)
			}
			return b, nil
		}
		// Polly.JS: a JSON array of base64 chunks, serialized into the string.
		if err := json.Unmarshal([]byte(s), &chunks); err != nil {
			return nil, fmt.Errorf("base64 chunk list is not a JSON array of strings: %v", syntaxMsg(err))
		}
	case '[':
		if !strings.EqualFold(encoding, "base64") {
			return nil, fmt.Errorf("text is an array but encoding is %q, want \"base64\"", truncate(encoding, 32))
		}
		if err := json.Unmarshal(t, &chunks); err != nil {
			return nil, fmt.Errorf("base64 chunk list is not a JSON array of strings: %v", syntaxMsg(err))
		}
	default:
		return nil, fmt.Errorf("text is a JSON %s, want a string", jsonKind(t[0]))
	}
	var out []byte
	for i, c := range chunks {
		n := base64.StdEncoding.DecodedLen(len(c))
		out = slices.Grow(out, n)
		k, err := base64.StdEncoding.Decode(out[len(out):len(out)+n], []byte(c))
		if err != nil {
			return nil, fmt.Errorf("base64 chunk %d: %v", i, err)
		}
		out = out[:len(out)+k]
	}
	return out, nil
}

// readsAsText reports whether b is UTF-8 without control characters other
// than tab, line feed and carriage return: a decoded JSON or SSE body, not
// a compressed stream (gzip starts with 0x1f, zstd and zlib with bytes that
// are not UTF-8, brotli yields control bytes within a few bytes).
func readsAsText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return invalidUTF8(b) < 0
}

// decompress undoes the Content-Encoding list (applied in order, so undone
// in reverse). Without a header it recognises gzip and zstd magic bytes and
// otherwise returns b unchanged.
func (r *Reader) decompress(b []byte, contentEncoding string) ([]byte, error) {
	var codings []string
	for c := range strings.SplitSeq(contentEncoding, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
			codings = append(codings, c)
		}
	}
	if len(codings) == 0 {
		switch ingest.DetectCompression(b) {
		case ingest.CompressionGzip:
			codings = []string{"gzip"}
		case ingest.CompressionZstd:
			codings = []string{"zstd"}
		}
	}
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		if b, err = r.decode(b, codings[i]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (r *Reader) decode(b []byte, coding string) ([]byte, error) {
	var zr io.Reader
	var err error
	switch coding {
	case "gzip", "x-gzip":
		if r.gzip == nil {
			r.gzip = new(gzip.Reader)
		}
		if err = r.gzip.Reset(bytes.NewReader(b)); err == nil {
			zr = r.gzip
		}
	case "deflate":
		// RFC 9110 deflate is zlib; some servers send raw deflate.
		if len(b) >= 2 && b[0]&0x0f == 8 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0 {
			zr, err = zlib.NewReader(bytes.NewReader(b))
		} else {
			zr = flate.NewReader(bytes.NewReader(b))
		}
	case "br":
		return decodeBrotli(b)
	case "zstd":
		if r.zstd == nil {
			r.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(MaxBodyBytes), zstd.WithDecoderMaxWindow(MaxBodyBytes))
			if err != nil {
				return nil, fmt.Errorf("zstd: %v", err)
			}
		}
		zr = r.zstd.IOReadCloser()
		if err = r.zstd.Reset(bytes.NewReader(b)); err != nil {
			return nil, decodeErr(coding, err)
		}
	default:
		return nil, fmt.Errorf("unsupported content-encoding %q", truncate(coding, 32))
	}
	if err != nil {
		return nil, decodeErr(coding, err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxBodyBytes+1))
	if err != nil {
		return nil, decodeErr(coding, err)
	}
	if len(out) > MaxBodyBytes {
		return nil, fmt.Errorf("%s: decompressed body is larger than %d MiB", coding, MaxBodyBytes>>20)
	}
	return out, nil
}

// decodeBrotli decodes a whole brotli stream. The brotli Reader reports a
// stream cut at a read boundary as a clean io.EOF, so one byte is appended
// after the input: a complete stream then ends with "excessive input" (its
// only success), while a truncated one does not.
func decodeBrotli(b []byte) ([]byte, error) {
	zr := brotli.NewReader(io.MultiReader(bytes.NewReader(b), bytes.NewReader([]byte{0})))
	out, err := io.ReadAll(io.LimitReader(zr, MaxBodyBytes+1))
	switch {
	case len(out) > MaxBodyBytes:
		return nil, fmt.Errorf("br: decompressed body is larger than %d MiB", MaxBodyBytes>>20)
	case err != nil && err.Error() == "brotli: excessive input":
		return out, nil
	case err == nil:
		return nil, errors.New("br stream is truncated")
	}
	return nil, decodeErr("br", err)
}

// decodeErr words a decompression error; a stream that ends early is
// "truncated".
func decodeErr(coding string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s stream is truncated", coding)
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, coding+": ")
	msg = strings.TrimPrefix(msg, "brotli: ")
	return fmt.Errorf("%s stream is corrupt: %s", coding, msg)
}

func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// truncate shortens s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
