package postgres

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TextProblem says why PostgreSQL's text type (in a UTF8 database) cannot
// hold s, or "" when it can: a NUL byte, or bytes that are not UTF-8.
// PostgreSQL refuses both (`invalid byte sequence for encoding "UTF8"`),
// so killswitch refuses them before anything is written rather than
// storing a changed value under the same name.
func TextProblem(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Sprintf("holds a NUL byte (at byte %d), which PostgreSQL text cannot store", i)
	}
	if !utf8.ValidString(s) {
		i := 0
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return fmt.Sprintf("is not UTF-8 (byte 0x%02x at byte %d), which PostgreSQL text cannot store", s[i], i)
	}
	return ""
}

// CheckStatements refuses statements with a text argument PostgreSQL
// cannot hold (see TextProblem), naming the statement (1-based) and the
// column. The policy checks its records first, where it can name a
// file:line; this is the store's own guard, for the script and Apply.
func CheckStatements(stmts []Statement) error {
	for i, s := range stmts {
		for j, a := range s.Args {
			str, ok := a.(string)
			if !ok {
				continue
			}
			if p := TextProblem(str); p != "" {
				return fmt.Errorf("statement %d: %s %s: nothing written", i+1, column(s.SQL, j), p)
			}
		}
	}
	return nil
}

// column names the j-th (0-based) column of an INSERT INTO t (c1, c2, …)
// statement: "t.cJ", or "$J+1" when the statement is not of that form.
func column(sql string, j int) string {
	rest, ok := strings.CutPrefix(sql, "INSERT INTO ")
	if ok {
		table, cols, ok := strings.Cut(rest, " (")
		if ok {
			cols, _, _ = strings.Cut(cols, ")")
			if names := strings.Split(cols, ", "); j < len(names) {
				return table + "." + names[j]
			}
		}
	}
	return fmt.Sprintf("$%d", j+1)
}
