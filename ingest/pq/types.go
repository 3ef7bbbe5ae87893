package pq

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// logical is the logical type annotation of a leaf column, reduced to what
// conversion needs.
type logical uint8

const (
	lNone logical = iota
	lString
	lJSON
	lEnum
	lUUID
	lDecimal
	lDate
	lTime // time of day: not a timestamp
	lTimestamp
	lInt
	lUint
	lBSON
	lNull  // the NULL type (pandas' all-None columns): every value is null
	lOther // geometry, variant, …: not read
)

// leafType is the physical and logical type of a leaf column.
type leafType struct {
	kind    parquet.Kind
	logical logical
	unit    time.Duration // lTimestamp: one tick
	scale   int32         // lDecimal
}

// leafTypeOf reads c's type. Legacy converted types (UTF8,
// TIMESTAMP_MILLIS, …) arrive as their logical equivalents.
func leafTypeOf(c *parquet.Column) leafType {
	t := c.Type()
	lt := leafType{kind: t.Kind()}
	l := t.LogicalType()
	if l == nil {
		return lt
	}
	switch v := l.Value.(type) {
	case nil:
	case *format.StringType:
		lt.logical = lString
	case *format.JsonType:
		lt.logical = lJSON
	case *format.EnumType:
		lt.logical = lEnum
	case *format.UUIDType:
		lt.logical = lUUID
	case *format.DecimalType:
		lt.logical, lt.scale = lDecimal, v.Scale
	case *format.DateType:
		lt.logical = lDate
	case *format.TimeType:
		lt.logical = lTime
	case *format.TimestampType:
		lt.logical = lTimestamp
		if lt.unit = TimestampUnit(t); lt.unit == 0 {
			lt.logical = lOther
		}
	case *format.IntType:
		lt.logical = lInt
		if !v.IsSigned {
			lt.logical = lUint
		}
	case *format.BsonType:
		lt.logical = lBSON
	case *format.NullType:
		lt.logical = lNull
	default:
		lt.logical = lOther
	}
	return lt
}

// TimestampUnit returns the tick of a TIMESTAMP column type (a
// millisecond, microsecond or nanosecond), or 0 when t is not one.
func TimestampUnit(t parquet.Type) time.Duration {
	l := t.LogicalType()
	if l == nil {
		return 0
	}
	ts, ok := l.Value.(*format.TimestampType)
	if !ok {
		return 0
	}
	switch ts.Unit.Value.(type) {
	case *format.MilliSeconds:
		return time.Millisecond
	case *format.MicroSeconds:
		return time.Microsecond
	case *format.NanoSeconds:
		return time.Nanosecond
	}
	return 0
}

func (t leafType) String() string {
	s := t.kind.String()
	switch t.logical {
	case lString:
		s += " (STRING)"
	case lJSON:
		s += " (JSON)"
	case lEnum:
		s += " (ENUM)"
	case lUUID:
		s += " (UUID)"
	case lDecimal:
		s += " (DECIMAL)"
	case lDate:
		s += " (DATE)"
	case lTime:
		s += " (TIME)"
	case lTimestamp:
		s += " (TIMESTAMP)"
	case lInt, lUint:
		s += " (INT)"
	case lBSON:
		s += " (BSON)"
	case lNull:
		s += " (NULL)"
	case lOther:
		s += " (other logical type)"
	}
	return s
}

func (t leafType) isBytes() bool {
	return t.kind == parquet.ByteArray || t.kind == parquet.FixedLenByteArray
}

func (t leafType) isInteger() bool {
	return (t.kind == parquet.Int32 || t.kind == parquet.Int64) &&
		(t.logical == lNone || t.logical == lInt || t.logical == lUint)
}

// accepts reports whether a column of type t can hold a field of class c.
func (t leafType) accepts(c class) bool {
	if t.logical == lOther || t.logical == lBSON || t.logical == lNull {
		return false
	}
	switch c {
	case clsTime:
		switch t.kind {
		case parquet.Int32:
			return t.logical != lTime
		case parquet.Int64:
			return t.logical != lTime
		case parquet.Int96, parquet.Float, parquet.Double:
			return true
		case parquet.ByteArray:
			return t.logical != lDecimal && t.logical != lUUID
		}
	case clsText:
		switch {
		case t.isBytes():
			return t.logical != lDecimal
		case t.isInteger():
			return true
		}
	case clsInt, clsFloat:
		switch t.kind {
		case parquet.Int32, parquet.Int64:
			return t.logical != lDate && t.logical != lTime && t.logical != lTimestamp
		case parquet.Float, parquet.Double:
			return true
		case parquet.ByteArray, parquet.FixedLenByteArray:
			return t.logical != lUUID && t.logical != lJSON
		}
	case clsBool:
		return t.kind == parquet.Boolean || (t.kind == parquet.ByteArray && t.logical != lDecimal)
	case clsBody:
		return t.kind == parquet.ByteArray && t.logical != lDecimal
	}
	return false
}

// Per-value conversions. Each takes a non-null value of a column of type t
// (checked by accepts) and never keeps v's bytes.

var errNotUTF8 = errors.New("is not valid UTF-8")

// text converts v to a string (a UUID in its canonical form, an integer in
// decimal).
func (t leafType) text(v parquet.Value) (string, error) {
	switch t.kind {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray()
		if t.logical == lUUID && len(b) == 16 {
			return ingest.FormatUUID(b), nil
		}
		if !utf8.Valid(b) {
			return "", errNotUTF8
		}
		return string(b), nil
	case parquet.Int32:
		if t.logical == lUint {
			return strconv.FormatUint(uint64(v.Uint32()), 10), nil
		}
		return strconv.FormatInt(int64(v.Int32()), 10), nil
	case parquet.Int64:
		if t.logical == lUint {
			return strconv.FormatUint(v.Uint64(), 10), nil
		}
		return strconv.FormatInt(v.Int64(), 10), nil
	}
	return "", fmt.Errorf("cannot read %s as text", t)
}

// number converts v to a float64: integers, decimals (scaled), floats, and
// strings holding a number.
func (t leafType) number(v parquet.Value) (float64, error) {
	switch t.kind {
	case parquet.Int32:
		var f float64
		if t.logical == lUint {
			f = float64(v.Uint32())
		} else {
			f = float64(v.Int32())
		}
		return t.scaled(f), nil
	case parquet.Int64:
		var f float64
		if t.logical == lUint {
			f = float64(v.Uint64())
		} else {
			f = float64(v.Int64())
		}
		return t.scaled(f), nil
	case parquet.Float:
		return float64(v.Float()), nil
	case parquet.Double:
		return v.Double(), nil
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray()
		if t.logical == lDecimal {
			f, _ := new(big.Float).SetInt(twosComplement(b)).Float64()
			return t.scaled(f), nil
		}
		s := strings.TrimSpace(string(b))
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("a string of %d characters is not a number", utf8.RuneCountInString(s))
		}
		return f, nil
	}
	return 0, fmt.Errorf("cannot read %s as a number", t)
}

func (t leafType) scaled(f float64) float64 {
	if t.logical == lDecimal && t.scale != 0 {
		return f / math.Pow10(int(t.scale))
	}
	return f
}

// twosComplement reads a big-endian two's complement integer (a DECIMAL
// stored in a byte array).
func twosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return n
}

// boolean converts v to a bool: a BOOLEAN, or the strings true and false.
func (t leafType) boolean(v parquet.Value) (bool, error) {
	if t.kind == parquet.Boolean {
		return v.Boolean(), nil
	}
	switch s := strings.TrimSpace(string(v.ByteArray())); s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, fmt.Errorf("a string of %d characters is neither true nor false", utf8.RuneCountInString(s))
	}
}

// julianUnixEpoch is the Julian day number of 1970-01-01.
const julianUnixEpoch = 2440588

// time converts v to a UTC time. TIMESTAMP columns not adjusted to UTC are
// read as UTC wall clock; plain numbers are Unix seconds or milliseconds
// (ingest.UnixNumber); strings go through ingest.ParseTimeString.
func (t leafType) time(v parquet.Value) (time.Time, error) {
	switch t.kind {
	case parquet.Int64:
		if t.logical == lTimestamp {
			x := v.Int64()
			switch t.unit {
			case time.Millisecond:
				return time.UnixMilli(x).UTC(), nil
			case time.Microsecond:
				return time.UnixMicro(x).UTC(), nil
			default:
				return time.Unix(0, x).UTC(), nil
			}
		}
	case parquet.Int32:
		if t.logical == lDate {
			return time.Unix(int64(v.Int32())*86400, 0).UTC(), nil
		}
	case parquet.Int96:
		i := v.Int96()
		nanos := uint64(i[1])<<32 | uint64(i[0])
		if nanos >= 86400*1e9 {
			return time.Time{}, fmt.Errorf("INT96 time of day %d ns is out of range", nanos)
		}
		days := int64(i[2]) - julianUnixEpoch
		return time.Unix(days*86400, int64(nanos)).UTC(), nil
	case parquet.ByteArray:
		b := v.ByteArray()
		if !utf8.Valid(b) {
			return time.Time{}, errNotUTF8
		}
		return ingest.ParseTimeString(string(b))
	}
	f, err := t.number(v)
	if err != nil {
		return time.Time{}, err
	}
	return ingest.UnixNumber(f)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
