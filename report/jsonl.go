package report

import (
	"bufio"
	"io"
)

// JSONLWriter writes one JSON value per line, each rendered by an append
// function into a reused buffer, through a 64 KiB buffer: call Flush at
// the end. DecisionWriter and WritesJSONL are its two uses.
type JSONLWriter[T any] struct {
	w      *bufio.Writer
	buf    []byte
	append func([]byte, T) []byte
}

// NewJSONLWriter returns a writer to w that renders each value with
// appendJSON.
func NewJSONLWriter[T any](w io.Writer, appendJSON func([]byte, T) []byte) *JSONLWriter[T] {
	return &JSONLWriter[T]{w: bufio.NewWriterSize(w, 1<<16), append: appendJSON}
}

// Write appends one line.
func (j *JSONLWriter[T]) Write(v T) error {
	j.buf = j.append(j.buf[:0], v)
	j.buf = append(j.buf, '\n')
	_, err := j.w.Write(j.buf)
	return err
}

// Flush flushes buffered lines.
func (j *JSONLWriter[T]) Flush() error { return j.w.Flush() }
