package agentgazer

// AgentGazer's normalizer is five global String.prototype.replace calls with
// regular expressions, then /\s+/g → " ", toLowerCase and trim. The regular
// expressions are hand-compiled below into matchers with the exact
// backtracking semantics of the JavaScript ones (TestPassesAgainstRegexp
// checks each against Go's regexp on the same input, and the oracle vectors
// check the whole against Node).
//
// Facts the matchers rely on:
//   - Without the /u flag, \b, \d and classes such as [0-9a-f] are ASCII-only
//     and a string is matched code unit by code unit; with /i (patterns 1, 3,
//     4) an ASCII class matches both cases of its ASCII letters and nothing
//     else (the /i canonicalization never maps a non-ASCII unit to ASCII, so
//     'ſ' U+017F and 'K' U+212A stay out of [a-z]). Go's (?i) would let them
//     in, which is why no (?i) is used anywhere in this package.
//   - Every pattern starts with \b followed by a word character, so a match
//     can only start where a run of word characters [A-Za-z0-9_] starts, and
//     it ends with a word character followed by \b, so it ends where such a
//     run ends.
//   - A global replace finds its matches left to right in the string as it
//     was before that replace; each search resumes where the last match ended.
//     Each pass sees the output of the previous one (its "<ID>", "<TS>").

// Replacement texts.
var (
	repID  = unitsOf("<ID>")
	repTS  = unitsOf("<TS>")
	repNUM = unitsOf("<NUM>")
)

// asciiClass bits.
const (
	clWord  = 1 << iota // [A-Za-z0-9_]
	clDigit             // [0-9]
	clHex               // [0-9A-Fa-f]
	clAlnum             // [0-9A-Za-z]
)

var asciiClass = func() (t [128]uint8) {
	for c := range 128 {
		switch {
		case c >= '0' && c <= '9':
			t[c] = clWord | clDigit | clHex | clAlnum
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			t[c] = clWord | clHex | clAlnum
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			t[c] = clWord | clAlnum
		case c == '_':
			t[c] = clWord
		}
	}
	return t
}()

func is(u uint16, class uint8) bool { return u < 128 && asciiClass[u]&class != 0 }

// boundaryAfterWord reports whether \b holds at e, given that u[e-1] is a
// word character.
func boundaryAfterWord(u []uint16, e int) bool { return e == len(u) || !is(u[e], clWord) }

// run returns how many units from u[p] on are in class.
func run(u []uint16, p int, class uint8) int {
	k := 0
	for p+k < len(u) && is(u[p+k], class) {
		k++
	}
	return k
}

// digitsAt reports whether u[p:p+n] are n digits.
func digitsAt(u []uint16, p, n int) bool {
	if p+n > len(u) {
		return false
	}
	for _, c := range u[p : p+n] {
		if !is(c, clDigit) {
			return false
		}
	}
	return true
}

// A pass is one replace: match reports the end of the match starting at the
// word start p (u[p] in class first), or -1.
type pass struct {
	first uint8
	match func(u []uint16, p int) int
	rep   []uint16
}

var passes = [...]pass{
	{clHex, matchUUID, repID},
	{clDigit, matchTimestamp, repTS},
	{clHex, matchHex16, repID},
	{clAlnum, matchKeywordID, repID},
	{clDigit, matchNumber, repNUM},
}

// matchUUID: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi.
func matchUUID(u []uint16, p int) int {
	const n = 36
	if p+n > len(u) {
		return -1
	}
	for i, c := range u[p : p+n] {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return -1
			}
		} else if !is(c, clHex) {
			return -1
		}
	}
	if !boundaryAfterWord(u, p+n) {
		return -1
	}
	return p + n
}

// matchTimestamp: /\b\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?\b/g.
//
// The alternatives are tried in the backtracking order of the regular
// expression: with the time part before without it; within it, with the
// fraction (greedy: only its longest form can end at \b, a shorter one is
// followed by a digit) before without; for each, the zone "Z", then
// "±hh:mm", then "±hhmm", then no zone.
func matchTimestamp(u []uint16, p int) int {
	if !digitsAt(u, p, 4) || !sepDigits(u, p+4, '-', 2) || !sepDigits(u, p+7, '-', 2) {
		return -1
	}
	date := p + 10
	if date < len(u) && u[date] == 'T' && digitsAt(u, date+1, 2) &&
		sepDigits(u, date+3, ':', 2) && sepDigits(u, date+6, ':', 2) {
		secs := date + 9
		if secs+1 < len(u) && u[secs] == '.' && is(u[secs+1], clDigit) {
			frac := secs + 1 + run(u, secs+1, clDigit)
			if e := matchZone(u, frac); e >= 0 {
				return e
			}
		}
		if e := matchZone(u, secs); e >= 0 {
			return e
		}
	}
	if boundaryAfterWord(u, date) {
		return date
	}
	return -1
}

// sepDigits reports whether u[p] is sep followed by n digits.
func sepDigits(u []uint16, p int, sep uint16, n int) bool {
	return p < len(u) && u[p] == sep && digitsAt(u, p+1, n)
}

// matchZone matches (Z|[+-]\d{2}:?\d{2})?\b at q, where u[q-1] is a digit.
func matchZone(u []uint16, q int) int {
	if q < len(u) {
		switch u[q] {
		case 'Z':
			if boundaryAfterWord(u, q+1) {
				return q + 1
			}
		case '+', '-':
			if digitsAt(u, q+1, 2) {
				if sepDigits(u, q+3, ':', 2) && boundaryAfterWord(u, q+6) {
					return q + 6
				}
				if digitsAt(u, q+3, 2) && boundaryAfterWord(u, q+5) {
					return q + 5
				}
			}
		}
	}
	if boundaryAfterWord(u, q) {
		return q
	}
	return -1
}

// matchHex16: /\b[0-9a-f]{16,}\b/gi. The greedy run can only end at \b at
// its longest.
func matchHex16(u []uint16, p int) int {
	k := run(u, p, clHex)
	if k >= 16 && boundaryAfterWord(u, p+k) {
		return p + k
	}
	return -1
}

// idKeywords are the alternatives of pattern 4, lower case, by first
// letter. None is a prefix of another, so at most one can match at a
// position.
var idKeywords = [26][]string{
	'i' - 'a': {"id"},
	'u' - 'a': {"user"},
	'o' - 'a': {"order"},
	's' - 'a': {"session"},
	'r' - 'a': {"request"},
	'm' - 'a': {"msg", "message"},
	'c' - 'a': {"chat"},
	't' - 'a': {"thread"},
}

// matchKeywordID: /\b(id|user|order|session|request|msg|message|chat|thread)[_-]?[a-z0-9]+\b/gi.
//
// After the keyword, the optional separator is tried first when present;
// [a-z0-9]+ can only end at \b at its longest (a shorter run is followed by
// an alphanumeric); without the separator the run would have to start at
// the separator, which is not alphanumeric. So the only candidate end is the
// end of the alphanumeric run after the keyword and the separator, if any,
// and it fails when that run is empty or followed by '_'.
func matchKeywordID(u []uint16, p int) int {
	c := u[p] | 0x20 // u[p] is alphanumeric: a lower-case letter or a digit now
	if c < 'a' || c > 'z' {
		return -1
	}
	q := -1
	for _, kw := range idKeywords[c-'a'] {
		if hasFoldedPrefix(u, p, kw) {
			q = p + len(kw)
			break
		}
	}
	if q < 0 {
		return -1
	}
	if q < len(u) && (u[q] == '_' || u[q] == '-') {
		q++
	}
	k := run(u, q, clAlnum)
	if k == 0 || !boundaryAfterWord(u, q+k) {
		return -1
	}
	return q + k
}

// hasFoldedPrefix reports whether u[p:] starts with the lower-case ASCII
// keyword kw, ignoring ASCII case only.
func hasFoldedPrefix(u []uint16, p int, kw string) bool {
	if p+len(kw) > len(u) {
		return false
	}
	for i := range len(kw) {
		c := u[p+i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != uint16(kw[i]) {
			return false
		}
	}
	return true
}

// matchNumber: /\b\d+(\.\d+)?\b/g. With the fraction (longest digit run
// only), else without: a following '.' is a boundary, any other following
// word character is not.
func matchNumber(u []uint16, p int) int {
	e := p + run(u, p, clDigit)
	if e+1 < len(u) && u[e] == '.' && is(u[e+1], clDigit) {
		f := e + 1 + run(u, e+1, clDigit)
		if boundaryAfterWord(u, f) {
			return f
		}
	}
	if boundaryAfterWord(u, e) {
		return e
	}
	return -1
}

// replaceAll appends src to dst with every match of ps replaced, and
// reports whether anything matched; when nothing did, dst is returned
// unchanged.
func (ps *pass) replaceAll(dst, src []uint16) ([]uint16, bool) {
	last, matched := 0, false
	// Invariant at the top of the loop: p == 0 or src[p-1] is not a word
	// character, so a word character at p is a \b position.
	for p := 0; p < len(src); {
		c := src[p]
		if !is(c, clWord) {
			p++
			continue
		}
		if is(c, ps.first) {
			if e := ps.match(src, p); e > p {
				dst = append(dst, src[last:p]...)
				dst = append(dst, ps.rep...)
				last, matched, p = e, true, e // src[e] is not a word character
				continue
			}
		}
		p += run(src, p, clWord)
	}
	if !matched {
		return dst, false
	}
	return append(dst, src[last:]...), true
}

// isSpace reports whether JavaScript's \s (WhiteSpace or LineTerminator)
// matches the unit c; String.prototype.trim strips the same set.
func isSpace(c uint16) bool {
	if c < 0x80 {
		return c == ' ' || c >= '\t' && c <= '\r'
	}
	switch c {
	case 0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return c >= 0x2000 && c <= 0x200A
}

// appendCollapsed appends src to dst with every run of whitespace replaced
// by one space (s.replace(/\s+/g, " ")).
func appendCollapsed(dst, src []uint16) []uint16 {
	for i := 0; i < len(src); {
		if !isSpace(src[i]) {
			dst = append(dst, src[i])
			i++
			continue
		}
		dst = append(dst, ' ')
		for i < len(src) && isSpace(src[i]) {
			i++
		}
	}
	return dst
}

// trimSpace returns u without leading and trailing whitespace (s.trim()).
func trimSpace(u []uint16) []uint16 {
	for len(u) > 0 && isSpace(u[0]) {
		u = u[1:]
	}
	for len(u) > 0 && isSpace(u[len(u)-1]) {
		u = u[:len(u)-1]
	}
	return u
}

// normalizeUnits returns AgentGazer's normalization of u. It may reuse u's
// storage; the result may alias u.
func normalizeUnits(u []uint16) []uint16 {
	spare := make([]uint16, 0, len(u)+len(u)/4+8)
	for i := range passes {
		out, changed := passes[i].replaceAll(spare[:0], u)
		if changed {
			u, spare = out, u
		}
	}
	collapsed := appendCollapsed(spare[:0], u)
	return trimSpace(appendLower(u[:0], collapsed))
}

// Normalize applies AgentGazer's normalization to s: in this order, UUIDs
// → "<ID>", ISO dates and timestamps → "<TS>", hex runs of 16 or more →
// "<ID>", keyword ids such as "user_42" → "<ID>", numbers → "<NUM>"; then
// every run of JavaScript whitespace → one space, JavaScript toLowerCase
// (so the placeholders end up as "<id>", "<ts>", "<num>") and trim.
//
// s is read as WTF-8 (see Prompt): valid UTF-8 plus the 3-byte form of lone
// surrogates; other ill-formed bytes read as U+FFFD, as Node decodes them.
// The result is WTF-8 too, so it is valid UTF-8 unless s held lone
// surrogates.
func Normalize(s string) string {
	return wtf8String(normalizeUnits(appendUnits(make([]uint16, 0, len(s)), s, true)))
}
