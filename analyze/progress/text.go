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

// byteClass says what a byte is to the tokenizer: classBoundary ends a
// token (ASCII white space and the punctuation that delimits words in
// prose, JSON and paths), classDigit is a digit (a token without one is a
// plain word, and needs no classify).
const (
	classBoundary = 1 << iota
	classDigit
	classTrail // sentence punctuation, not part of a token it ends (isTrail)
)

var byteClass = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r\v\f\"'`()[]{}<>,;=|/\\") {
		t[c] = classBoundary
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	for _, c := range []byte(".:!?,") {
		if t[c] == 0 {
			t[c] = classTrail
		}
	}
	return t
}()

// lower maps ASCII upper case to lower case, every other byte to itself;
// same maps every byte to itself (the hash of a normalizer that keeps case).
var lower, same = func() (l, s [256]byte) {
	for i := range l {
		l[i], s[i] = byte(i), byte(i)
		if i >= 'A' && i <= 'Z' {
			l[i] += 'a' - 'A'
		}
	}
	return l, s
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
	prev     wordFlag // what the last word is (see wordFlag), 0 after anything else
	pending  []byte   // a number token that a duration unit may follow
	out      []byte   // when non-nil, the normalized text is appended (fingerprint)
	show     bool
}

func (n *normalizer) reset() {
	n.h, n.words, n.errs, n.empty, n.shell, n.exit, n.prev, n.pending = fnvOffset, 0, false, false, 0, false, 0, nil
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
		if byteClass[s[i]]&classBoundary != 0 {
			i++
			continue
		}
		if n.pending != nil || n.show {
			i = n.slowToken(s, i)
			continue
		}
		// A token that follows no number, not shown: hash it as a word
		// while finding its end (the hash is dropped when it holds a
		// digit, and classify says what it is).
		tab := &lower
		if n.keepCase {
			tab = &same
		}
		h0 := fnvByte(n.h, 0x1f)
		h, w, class := h0, uint64(0), uint8(0)
		j, keep, hKeep := i, 0, h0 // keep: the bytes up to its last that is not trailing punctuation; hKeep: their hash
		for ; j < len(s); j++ {
			c := s[j]
			cl := byteClass[c]
			if cl&classBoundary != 0 {
				break
			}
			class |= cl
			h = (h ^ uint64(tab[c])) * fnvPrime
			if j-i < maxFollowed {
				w |= uint64(lower[c]) << (8 * (j - i))
			}
			if cl&classTrail == 0 {
				keep, hKeep = j+1-i, h
			}
		}
		if keep == 0 { // only punctuation: its first byte is the token
			keep, hKeep = 1, (h0^uint64(tab[s[i]]))*fnvPrime
		}
		tok := s[i : i+keep]
		i = j
		if class&classDigit != 0 {
			n.token(tok, true)
			continue
		}
		if keep < maxFollowed {
			w &= 1<<(8*keep) - 1
		}
		n.word(tok, hKeep, w)
	}
	n.flush()
	n.h = fnvByte(n.h, 0x1e)
	if n.show {
		n.out = append(n.out, '\n')
	}
}

// slowToken feeds the token that starts at s[i] through token and returns
// the index past it.
func (n *normalizer) slowToken(s []byte, i int) int {
	j, class := i, uint8(0)
	for j < len(s) {
		c := byteClass[s[j]]
		if c&classBoundary != 0 {
			break
		}
		class |= c
		j++
	}
	tok := s[i:j]
	// Sentence punctuation at the end of a token is not part of it.
	for len(tok) > 1 && isTrail(tok[len(tok)-1]) {
		tok = tok[:len(tok)-1]
	}
	n.token(tok, class&classDigit != 0)
	return j
}

func isTrail(c byte) bool { return c == '.' || c == ':' || c == '!' || c == '?' || c == ',' }

// token feeds one token; digits says whether it holds a digit (without
// one it is a word: classify is not asked).
func (n *normalizer) token(tok []byte, digits bool) {
	if n.pending != nil {
		if isDurationUnit(tok) {
			n.emitKind(tokDur)
			n.pending = nil
			n.emitWord(tok)
			return
		}
		n.flush()
	}
	k := tokWord
	if digits {
		k = classify(tok)
	}
	switch k {
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
	n.prev, n.shell = 0, shellNone
}

// emitWord hashes a word (lowercased unless keepCase) and follows the
// words and phrases that say a tool failed, that a result is empty, that
// an exit status or a shell's line counter comes next.
func (n *normalizer) emitWord(tok []byte) {
	// One pass hashes the word and packs its first maxFollowed bytes,
	// lowercased, for kindOf: the hash's multiplications are a chain,
	// and the packing runs beside it.
	tab := &lower
	if n.keepCase {
		tab = &same
	}
	h := fnvByte(n.h, 0x1f)
	var w uint64
	for i, c := range tok {
		h = (h ^ uint64(tab[c])) * fnvPrime
		if i < maxFollowed {
			w |= uint64(lower[c]) << (8 * i)
		}
	}
	n.word(tok, h, w)
}

// word counts a word whose hash (the normalizer's hash with the word
// added) and packed first maxFollowed bytes are h and w, shows it, and
// follows it (see emitWord).
func (n *normalizer) word(tok []byte, h, w uint64) {
	n.words++
	n.h = h
	if n.show {
		for _, c := range tok {
			n.out = append(n.out, lower[c])
		}
		n.out = append(n.out, ' ')
	}
	var k wordFlag
	switch {
	case len(tok) <= maxFollowed:
		k = kindOf(w | uint64(len(tok))<<56)
	case len(tok) == 9 && (equalLower(tok, "exception") || equalLower(tok, "traceback")):
		k = wfErr
	case len(tok) == 10 && equalLower(tok, "returncode"):
		k = wfReturncode
	}
	prev := n.prev
	if k&wfErr != 0 {
		n.errs = true
	}
	switch {
	case prev&wfNot != 0 && k&wfFound != 0,
		prev&wfNo != 0 && k&wfSuch != 0,
		prev&wfTimed != 0 && k&wfOut != 0:
		n.errs = true
	case prev&wfNo != 0 && k&(wfNoResult|wfOutput) != 0,
		prev&wfAny != 0 && k&wfOutput != 0:
		// "No matches found", "did not produce any output": an
		// empty answer, which is news for a new question.
		n.empty = true
	}
	switch {
	case k&wfShell != 0:
		n.shell = shellName
	case n.shell == shellName && k&wfLine != 0:
		n.shell = shellLine
	default:
		n.shell = shellNone
	}
	n.exit = k&wfReturncode != 0 || (prev&wfExit != 0 && k&wfCode != 0)
	n.prev = k
}

// A wordFlag says what a word is to emitWord: an error word by itself
// (wfErr), or a word of a phrase ("not found", "no such", "timed out", "no
// matches", "any output", "bash line", "exit code").
type wordFlag uint16

const (
	wfErr        wordFlag = 1 << iota // error, failed, denied, …
	wfNot                             // not (found)
	wfNo                              // no (such; results, matches, result, output)
	wfTimed                           // timed (out)
	wfAny                             // any (output)
	wfExit                            // exit (code, status)
	wfFound                           // (not) found
	wfSuch                            // (no) such
	wfOut                             // (timed) out
	wfNoResult                        // (no) results, matches, result
	wfOutput                          // (no, any) output
	wfShell                           // bash, sh, zsh, dash (line)
	wfLine                            // (bash) line
	wfCode                            // (exit) code, status
	wfReturncode                      // returncode: an exit status follows
)

// wordKinds are the words of maxFollowed bytes or fewer that emitWord
// follows, lowercased (exception, traceback and returncode are longer:
// emitWord compares them itself).
var wordKinds = map[string]wordFlag{
	"error": wfErr, "errors": wfErr, "err": wfErr, "err!": wfErr, "failed": wfErr, "failure": wfErr,
	"fatal": wfErr, "panic": wfErr, "denied": wfErr, "invalid": wfErr, "unknown": wfErr, "unable": wfErr,
	"cannot": wfErr, "can't": wfErr, "timeout": wfErr, "refused": wfErr, "enoent": wfErr,
	"not": wfNot, "no": wfNo, "timed": wfTimed, "any": wfAny, "exit": wfExit,
	"found": wfFound, "such": wfSuch, "out": wfOut, "results": wfNoResult, "matches": wfNoResult,
	"result": wfNoResult, "output": wfOutput,
	"bash": wfShell, "sh": wfShell, "zsh": wfShell, "dash": wfShell, "line": wfLine,
	"code": wfCode, "status": wfCode,
}

// maxFollowed is the longest word of wordKinds.
const maxFollowed = 7

// kindTable holds wordKinds by packed word (pack), in open addressing:
// one multiplication and, mostly, one load a word. It is sparse (36 words
// in 512 slots) so that the first slot an ordinary word looks at is empty
// nearly always: a branch the processor predicts.
const (
	kindBits  = 9
	kindSlots = 1 << kindBits
)

var kindTable = func() (t [kindSlots]struct {
	w uint64
	k wordFlag
}) {
	for s, k := range wordKinds {
		if len(s) > maxFollowed {
			panic("progress: wordKinds holds a word longer than maxFollowed: " + s)
		}
		w := pack([]byte(s))
		i := kindSlot(w)
		for t[i].w != 0 {
			i = (i + 1) % uint64(len(t))
		}
		t[i].w, t[i].k = w, k
	}
	return t
}()

func kindSlot(w uint64) uint64 { return (w * 0x9e3779b97f4a7c15) >> (64 - kindBits) }

// kindOf returns the flags of a packed word (pack); 0 for any other word.
func kindOf(w uint64) wordFlag {
	for i := kindSlot(w); kindTable[i].w != 0; i = (i + 1) % uint64(len(kindTable)) {
		if kindTable[i].w == w {
			return kindTable[i].k
		}
	}
	return 0
}

// pack returns a word of maxFollowed bytes or fewer, lowercased, as one
// integer: its bytes from the lowest, its length in the highest byte.
func pack(tok []byte) uint64 {
	var w uint64
	for i, c := range tok[:min(len(tok), maxFollowed)] {
		w |= uint64(lower[c]) << (8 * i)
	}
	return w | uint64(len(tok))<<56
}

// equalLower reports whether tok lowercased is s (lower case).
func equalLower(tok []byte, s string) bool {
	if len(tok) != len(s) {
		return false
	}
	for i, c := range tok {
		if lower[c] != s[i] {
			return false
		}
	}
	return true
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
