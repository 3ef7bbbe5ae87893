package redis

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// Key is one key of an end state: SET Key Value EX TTL.
type Key struct {
	Key, Value string
	TTL        int64 // seconds, ≥ 1
}

// Cmd is one command of a command log, at the capture time it was made.
type Cmd struct {
	TS      time.Time
	Source  ingest.Pos
	Op      string // "INCR", "EXPIRE", "SET", "DEL"
	Key     string
	Value   string // SET
	Seconds int64  // EXPIRE, SET … EX
}

// WriteScript writes an end state as a script `redis-cli < FILE` loads:
// per group (a breaker's scope) one MULTI … EXEC of SET key value EX ttl,
// arguments quoted the way redis-cli reads them.
func WriteScript(w io.Writer, scopes [][]Key) error {
	bw := bufio.NewWriter(w)
	for _, keys := range scopes {
		bw.WriteString("MULTI\n")
		for _, k := range keys {
			fmt.Fprintf(bw, "SET %s %s EX %d\n", redisQuote(k.Key), redisQuote(k.Value), k.TTL)
		}
		bw.WriteString("EXEC\n")
	}
	return bw.Flush()
}

// redisQuote quotes s as redis-cli's argument splitter reads a
// double-quoted string: \" \\ \n \r \t, and \xHH for every other byte
// outside printable ASCII.
func redisQuote(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < 0x20 || c >= 0x7f:
			b = append(b, `\x`...)
			b = append(b, strconv.FormatUint(uint64(c)|0x100, 16)[1:]...)
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

// AppendCmd appends one command of a log as a JSON object: {"ts",
// "source", "cmd", "key"[, "value"][, "seconds"]}.
func AppendCmd(b []byte, c *Cmd) []byte {
	b = append(b, `{"ts":`...)
	b = report.AppendString(b, ingest.FormatTime(c.TS))
	b = append(b, `,"source":`...)
	b = report.AppendString(b, c.Source.String())
	b = append(b, `,"cmd":`...)
	b = report.AppendString(b, c.Op)
	b = append(b, `,"key":`...)
	b = report.AppendString(b, c.Key)
	if c.Op == "SET" {
		b = append(b, `,"value":`...)
		b = report.AppendString(b, c.Value)
	}
	if c.Op != "INCR" && c.Op != "DEL" {
		b = append(b, `,"seconds":`...)
		b = strconv.AppendInt(b, c.Seconds, 10)
	}
	return append(b, '}')
}
