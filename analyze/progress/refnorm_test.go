package progress

// refNormalizer is the normalizer as it was before #33's speed-up (one
// pass to find a token, one to classify it, one to hash it, one to
// lowercase a copy for the error words): the oracle the fast one is held
// to, hash for hash (TestNormalizerReference, FuzzNormalizer).

var refBoundary = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r\v\f\"'`()[]{}<>,;=|/\\") {
		t[c] = true
	}
	return t
}()

// normalizer hashes texts in their churn-normalized form: ASCII lowercased,
// split into tokens, identifiers, timestamps and durations replaced, words
// and numbers kept. It also counts words and notices error words. A
// normalizer is reused; reset starts a new text.
type refNormalizer struct {
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

func (n *refNormalizer) reset() {
	n.h, n.words, n.errs, n.empty, n.shell, n.exit, n.prevLen, n.pending = fnvOffset, 0, false, false, 0, false, 0, nil
}

// add feeds one text (one part: a tool result, a user turn). Parts are
// separated in the hash, so "a b" + "c" differs from "a" + "b c".
func (n *refNormalizer) add(s []byte) {
	for i := 0; i < len(s); {
		if refBoundary[s[i]] {
			i++
			continue
		}
		j := i
		for j < len(s) && !refBoundary[s[j]] {
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

func (n *refNormalizer) token(tok []byte) {
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
func (n *refNormalizer) flush() {
	if n.pending != nil {
		n.emitWord(n.pending)
		n.pending = nil
	}
}

func (n *refNormalizer) emitKind(k tokKind) { n.emitPlaceholder(placeholder[k]) }

func (n *refNormalizer) emitPlaceholder(p string) {
	n.words++
	n.h = fnvBytes(fnvByte(n.h, 0x1f), []byte(p))
	if n.show {
		n.out = append(n.out, p...)
		n.out = append(n.out, ' ')
	}
	n.prevLen, n.shell = 0, shellNone
}

func (n *refNormalizer) emitWord(tok []byte) {
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
func (n *refNormalizer) shellWord(w []byte) {
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
func (n *refNormalizer) errWord(w []byte) {
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
