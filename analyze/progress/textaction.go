package progress

import "bytes"

// Text actions. Many agents never use the tools API: SWE-agent writes its
// command in a fenced block at the end of the assistant's content, ReAct
// agents write "Thought: … Action: …", and the observation comes back as
// the next user message. For such a turn the action is the command the
// text holds, not the text: the narration around it ("Let me try again",
// a new thought every step) changes while the command stays the same.

// textCommand returns the command an assistant text holds: the body of
// its last fenced block (``` … ```, the info string after the opening
// fence dropped), else what follows its last "Action:" line (up to an
// "Observation:" line, when the model wrote one itself). nil when the
// text holds neither: it is an answer, not an action.
func textCommand(s []byte) []byte {
	if cmd := lastFence(s); cmd != nil {
		return cmd
	}
	i := lastLineStart(s, "Action:")
	if i < 0 {
		return nil
	}
	cmd := s[i+len("Action:"):]
	if j := bytes.Index(cmd, []byte("\nObservation:")); j >= 0 {
		cmd = cmd[:j]
	}
	cmd = bytes.TrimSpace(cmd)
	if len(cmd) == 0 {
		return nil
	}
	return cmd
}

// lastFence returns the trimmed body of the last complete fenced block,
// or nil.
func lastFence(s []byte) []byte {
	end := bytes.LastIndex(s, []byte("```"))
	if end < 0 {
		return nil
	}
	start := bytes.LastIndex(s[:end], []byte("```"))
	if start < 0 {
		return nil
	}
	body := s[start+3 : end]
	// The opening fence's line holds an info string ("bash"), not the
	// command.
	if nl := bytes.IndexByte(body, '\n'); nl >= 0 {
		body = body[nl+1:]
	} else {
		return nil
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil
	}
	return body
}

// lastLineStart returns the index of the last occurrence of prefix at the
// start of a line of s, or -1.
func lastLineStart(s []byte, prefix string) int {
	for end := len(s); end > 0; {
		i := bytes.LastIndex(s[:end], []byte(prefix))
		if i < 0 {
			return -1
		}
		if i == 0 || s[i-1] == '\n' {
			return i
		}
		end = i
	}
	return -1
}

// commandName is the program a command runs, for explanations and for the
// argument-churn signal (the same program, other arguments): its first
// word, after any markup tag (<command>) and environment assignments
// (GOTOOLCHAIN=auto).
func commandName(cmd []byte) []byte {
	for {
		cmd = bytes.TrimLeft(cmd, " \t\r\n")
		if len(cmd) > 0 && cmd[0] == '<' {
			if j := bytes.IndexByte(cmd, '>'); j > 0 {
				cmd = cmd[j+1:]
				continue
			}
		}
		end := bytes.IndexAny(cmd, " \t\r\n<")
		if end < 0 {
			end = len(cmd)
		}
		w := cmd[:end]
		if eq := bytes.IndexByte(w, '='); eq > 0 && end < len(cmd) {
			cmd = cmd[end:]
			continue
		}
		if len(w) > 40 {
			w = w[:40]
		}
		return w
	}
}

// maxEchoWords bounds the words of a text command looked for in the
// observation (a long edit's body is not echoed word by word).
const maxEchoWords = 16

// textCall adds a text command as the action's one call: its name is the
// program, its argument the whole command (churn-normalized as a string
// argument is), and each of its words of 3 bytes or more is an argument
// the observation may echo.
func (x *Extractor) textCall(cmd []byte) {
	name := commandName(cmd)
	h := fnvBytes(fnvOffset, name)
	x.nameHashes = append(x.nameHashes, h|1)
	x.argNorm.reset()
	x.argNorm.add(cmd)
	x.noteBody(cmd, x.argNorm.words)
	x.callHashes = append(x.callHashes, fnvUint(fnvByte(h, '`'), x.argNorm.h)|1)
	// The whole command first (a shell echoes it), then its words.
	x.args = append(x.args, cmd...)
	x.argSpans = append(x.argSpans, len(x.args))
	for i, w := range bytes.Fields(cmd) {
		if i == maxEchoWords {
			break
		}
		if len(w) >= 3 {
			x.args = append(x.args, w...)
			x.argSpans = append(x.argSpans, len(x.args))
		}
	}
	x.label = append(x.label, name...)
}
