package ingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Unix numbers at or above this are milliseconds, below it seconds: 1e11
// seconds is the year 5138, 1e11 milliseconds is March 1973.
const msThreshold = 1e11

// ParseTimeString parses a capture timestamp given as text: RFC 3339 (with
// or without fraction, 'T' or ' ' separator), a zone-less
// "YYYY-MM-DD HH:MM:SS[.ffffff]" taken as UTC (LiteLLM), RFC 1123 (HAR
// exports from some tools), or a decimal number of Unix seconds or
// milliseconds. The result is in UTC.
func ParseTimeString(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty timestamp")
	}
	if c := s[0]; c >= '0' && c <= '9' && len(s) >= 10 && s[4] == '-' {
		for _, layout := range isoLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("unparsable timestamp: a string of %d characters where a time was expected (want RFC 3339)", utf8.RuneCountInString(s))
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return UnixNumber(f)
	}
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("unparsable timestamp: a string of %d characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)", utf8.RuneCountInString(s))
}

var isoLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
}

// UnixNumber converts Unix seconds or milliseconds (see msThreshold) to UTC.
func UnixNumber(f float64) (time.Time, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return time.Time{}, fmt.Errorf("timestamp %v is not a Unix time", f)
	}
	if f >= msThreshold {
		f /= 1000
	}
	if f >= 1e11 {
		return time.Time{}, fmt.Errorf("timestamp %v is out of range", f)
	}
	sec, frac := math.Modf(f)
	// Round to microseconds: float seconds carry no more, and rounding keeps
	// 1757015025.9723232 from printing as …972323199.
	ns := math.Round(frac*1e6) * 1e3
	return time.Unix(int64(sec), int64(ns)).UTC(), nil
}

// FormatTime renders a replay time: RFC 3339 in UTC with milliseconds.
func FormatTime(t time.Time) string {
	return string(AppendTime(nil, t))
}

// timeLayout is FormatTime's layout.
const timeLayout = "2006-01-02T15:04:05.000Z"

// AppendTime appends t as FormatTime writes it, digit by digit: a
// decision record per request writes one, and time's layout interpreter
// was the larger part of writing a record. A year outside 0–9999 goes
// through the layout, as it always did.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}
