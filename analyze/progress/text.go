package progress

// FNV-1a, 64 bits: the hash of every exact comparison (observations,
// actions, answers). Equal hashes stand for equal normalized texts.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func fnvUint(h, v uint64) uint64 {
	for range 8 {
		h = fnvByte(h, byte(v))
		v >>= 8
	}
	return h
}

// Token kinds the churn normalization distinguishes. Words and numbers are
// kept exactly (numbers are where progress shows: 45% → 50%, offset 200 →
// 300); identifiers, timestamps and durations are churn (a new trace id,
// the clock, how long a failing command took) and are replaced.
type tokKind uint8

const (
	tokWord tokKind = iota
	tokNum          // a plain number: kept
	tokID           // UUID, hex id, #123, a token with a run of ≥ 4 digits among letters
	tokTS           // a date, a time of day, a Unix time (≥ 10 digits)
	tokDur          // a number with a time unit: 3.42s, 120ms, "4 seconds"
)

// Placeholders written for replaced tokens; upper case and bracketed, so
// that they cannot be confused with the (lowercased) text.
var placeholder = [...]string{tokID: "<ID>", tokTS: "<TS>", tokDur: "<DUR>"}

// boundary marks bytes that end a token: ASCII white space and the
// punctuation that delimits words in prose, JSON and paths.
var boundary = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r\v\f\"'`()[]{}<>,;=|/\\") {
		t[c] = true
	}
	return t
}()

// normalizer hashes texts in their churn-normalized form: ASCII lowercased,
// split into tokens, identifiers, timestamps and durations replaced, words
// and numbers kept. It also counts words and notices error words. A
// normalizer is reused; reset starts a new text.
type normalizer struct {
	h     uint64
	words int
	errs  bool  // an error word or phrase was seen
	empty bool  // a phrase saying the result is empty ("no matches") was seen
	shell uint8 // shellName, shellLine: the last words began a shell's error prefix
	exit  bool  // the last words were "exit code", "exit status" or "returncode"
	// keepCase hashes words with their case (an action's arguments: a
	// search for RetryBudget is not one for retryBudget); observations
	// are compared without it.
	keepCase bool
	prev     [8]byte
	prevLen  int
	pending  []byte // a number token that a duration unit may follow
	out      []byte // when non-nil, the normalized text is appended (fingerprint)
	show     bool
	low      [16]byte
}

func (n *normalizer) reset() {
	n.h, n.words, n.errs, n.empty, n.shell, n.exit, n.prevLen, n.pending = fnvOffset, 0, false, false, 0, false, 0, nil
}

// A shell prefixes its errors with its own input line counter
// ("/bin/bash: line 13053: cd: x: No such file or directory", dash's
// "sh: 1: javac: not found"): a count of what the session ran, not of the
// work, that changes at every command. The number after "bash line" (or
// "sh line", "sh") is replaced like an identifier.
const (
	shellNone uint8 = iota
	shellName       // the last word was bash, sh, zsh, dash
	shellLine       // the last two were a shell's name and "line"
)

// Placeholder of a shell's line counter.
const shellCounter = "<LINE>"

// add feeds one text (one part: a tool result, a user turn). Parts are
// separated in the hash, so "a b" + "c" differs from "a" + "b c".
func (n *normalizer) add(s []byte) {
	for i := 0; i < len(s); {
		if boundary[s[i]] {
			i++
			continue
		}
		j := i
		for j < len(s) && !boundary[s[j]] {
			j++
		}
		tok := s[i:j]
		// Sentence punctuation at the end of a token is not part of it.
		for len(tok) > 1 && isTrail(tok[len(tok)-1]) {
			tok = tok[:len(tok)-1]
		}
		n.token(tok)
		i = j
	}
	n.flush()
	n.h = fnvByte(n.h, 0x1e)
	if n.show {
		n.out = append(n.out, '\n')
	}
}

func isTrail(c byte) bool { return c == '.' || c == ':' || c == '!' || c == '?' || c == ',' }

func (n *normalizer) token(tok []byte) {
	if n.pending != nil {
		if isDurationUnit(tok) {
			n.emitKind(tokDur)
			n.pending = nil
			n.emitWord(tok)
			return
		}
		n.flush()
	}
	switch k := classify(tok); k {
	case tokWord:
		n.emitWord(tok)
	case tokNum:
		// A non-zero exit status says the command failed ("exit code:
		// 1", "<returncode>2</returncode>").
		if n.exit && string(tok) != "0" {
			n.errs = true
		}
		n.exit = false
		if n.shell != shellNone {
			n.emitPlaceholder(shellCounter)
			return
		}
		n.pending = tok
	default:
		n.emitKind(k)
	}
}

// flush emits a pending number as itself.
func (n *normalizer) flush() {
	if n.pending != nil {
		n.emitWord(n.pending)
		n.pending = nil
	}
}

func (n *normalizer) emitKind(k tokKind) { n.emitPlaceholder(placeholder[k]) }

func (n *normalizer) emitPlaceholder(p string) {
	n.words++
	n.h = fnvBytes(fnvByte(n.h, 0x1f), []byte(p))
	if n.show {
		n.out = append(n.out, p...)
		n.out = append(n.out, ' ')
	}
	n.prevLen, n.shell = 0, shellNone
}

func (n *normalizer) emitWord(tok []byte) {
	n.words++
	h := fnvByte(n.h, 0x1f)
	for _, c := range tok {
		if c >= 'A' && c <= 'Z' && !n.keepCase {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	n.h = h
	if n.show {
		for _, c := range tok {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			n.out = append(n.out, c)
		}
		n.out = append(n.out, ' ')
	}
	if len(tok) <= len(n.low) {
		l := n.low[:len(tok)]
		for i, c := range tok {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			l[i] = c
		}
		n.errWord(l)
		n.shellWord(l)
		n.exit = string(l) == "returncode" || (n.prevLen == 4 && string(n.prev[:4]) == "exit" && (string(l) == "code" || string(l) == "status"))
		n.prevLen = 0
		if len(l) <= len(n.prev) {
			n.prevLen = copy(n.prev[:], l)
		}
		return
	}
	n.prevLen, n.shell, n.exit = 0, shellNone, false
}

// shellWord follows a shell's error prefix (see shellLine).
func (n *normalizer) shellWord(w []byte) {
	switch {
	case string(w) == "bash" || string(w) == "sh" || string(w) == "zsh" || string(w) == "dash":
		n.shell = shellName
	case n.shell == shellName && string(w) == "line":
		n.shell = shellLine
	default:
		n.shell = shellNone
	}
}

// errWord notices the words and two-word phrases that say a tool failed.
func (n *normalizer) errWord(w []byte) {
	switch string(w) {
	case "error", "errors", "err", "err!", "failed", "failure", "fatal", "exception", "traceback",
		"panic", "denied", "invalid", "unknown", "unable", "cannot", "can't", "timeout", "refused", "enoent":
		n.errs = true
		return
	}
	prev := string(n.prev[:n.prevLen])
	switch {
	case prev == "not" && string(w) == "found",
		prev == "no" && string(w) == "such",
		prev == "timed" && string(w) == "out":
		n.errs = true
	case prev == "no" && (string(w) == "results" || string(w) == "matches" || string(w) == "result" || string(w) == "output"),
		prev == "any" && string(w) == "output":
		// "No matches found", "did not produce any output": an
		// empty answer, which is news for a new question.
		n.empty = true
	}
}

func isDurationUnit(tok []byte) bool {
	var low [12]byte
	if len(tok) > len(low) {
		return false
	}
	for i, c := range tok {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(tok)]) {
	case "s", "sec", "secs", "second", "seconds", "ms", "millisecond", "milliseconds",
		"min", "mins", "minute", "minutes", "h", "hr", "hrs", "hour", "hours":
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// classify says what a token is (see tokKind).
func classify(t []byte) tokKind {
	digits, run, maxRun, letters := 0, 0, 0, 0
	for _, c := range t {
		if isDigit(c) {
			digits++
			run++
			maxRun = max(maxRun, run)
			continue
		}
		run = 0
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			letters++
		}
	}
	if digits == 0 {
		return tokWord
	}
	if t[0] == '#' && digits == len(t)-1 {
		return tokID
	}
	if isUUID(t) {
		return tokID
	}
	if isDateOrTime(t) {
		return tokTS
	}
	if num, unit := splitNumber(t); num > 0 {
		switch {
		case unit > 0 && isDurationUnit(t[num:]):
			return tokDur
		case unit > 0:
			// 10px, 3x, 2nd: a word.
		case maxRun >= 10:
			return tokTS // Unix seconds or milliseconds
		default:
			return tokNum
		}
	}
	if maxRun >= 4 && letters > 0 {
		return tokID
	}
	if len(t) >= 8 && letters > 0 {
		hex := true
		for _, c := range t {
			if !isHex(c) {
				hex = false
				break
			}
		}
		if hex {
			return tokID
		}
	}
	return tokWord
}

// splitNumber returns the length of a leading number (optional sign,
// digits with at most one '.', an optional '%') and of the letters after
// it; num is 0 when t does not start with a number or has more after it.
func splitNumber(t []byte) (num, unit int) {
	i := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	start, dot := i, false
	for i < len(t) && (isDigit(t[i]) || (t[i] == '.' && !dot)) {
		if t[i] == '.' {
			dot = true
		}
		i++
	}
	if i == start || !isDigit(t[i-1]) {
		return 0, 0
	}
	if i < len(t) && t[i] == '%' {
		i++
	}
	num = i
	for i < len(t) && t[i]|0x20 >= 'a' && t[i]|0x20 <= 'z' {
		i++
	}
	if i != len(t) {
		return 0, 0
	}
	return num, len(t) - num
}

func isUUID(t []byte) bool {
	if len(t) != 36 {
		return false
	}
	for i, c := range t {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(c) {
			return false
		}
	}
	return true
}

// isDateOrTime: 2026-02-03…, 2026/02/03 is split by '/', 14:05, 14:05:09Z.
func isDateOrTime(t []byte) bool {
	if len(t) >= 10 && isDigit(t[0]) && isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && t[4] == '-' &&
		isDigit(t[5]) && isDigit(t[6]) && t[7] == '-' && isDigit(t[8]) && isDigit(t[9]) {
		return true
	}
	// A time of day: hours below 24, minutes below 60 ("52:60", an edit's
	// line range, is not one).
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i < 1 || i > 2 || i+2 >= len(t) || t[i] != ':' || !isDigit(t[i+1]) || !isDigit(t[i+2]) {
		return false
	}
	h := int(t[0] - '0')
	if i == 2 {
		h = 10*h + int(t[1]-'0')
	}
	return h < 24 && t[i+1] < '6'
}
