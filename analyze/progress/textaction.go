package progress

import "bytes"

// Text actions. Many agents never use the tools API: SWE-agent writes its
// command in a fenced block at the end of the assistant's content, ReAct
// agents write "Thought: … Action: …", and the observation comes back as
// the next user message. For such a turn the action is the command the
// text holds, not the text: the narration around it ("Let me try again",
// a new thought every step) changes while the command stays the same.

// textCommand returns the command an assistant text holds, the first
// found of: its last function block (OpenHands without function calling:
// "<function=execute_bash><parameter=command>ls</parameter></function>");
// its last command element (<command>, <execute_bash>, <execute_ipython>);
// the body of its last fenced block (``` … ```, as SWE-agent writes it; the
// info string after the opening fence dropped); what follows its last
// "Action:" line (ReAct; up to an "Observation:" line, when the model wrote
// one itself). nil when it holds none: it is an answer, not an action.
func textCommand(s []byte) []byte {
	if cmd := lastElement(s, "<function=", "</function>"); cmd != nil {
		return cmd
	}
	for _, tag := range commandTags {
		if cmd := lastElement(s, tag[0], tag[1]); cmd != nil {
			return cmd
		}
	}
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

// commandTags are the elements agents write a command in.
var commandTags = [...][2]string{
	{"<command>", "</command>"},
	{"<execute_bash>", "</execute_bash>"},
	{"<execute_ipython>", "</execute_ipython>"},
}

// lastElement returns the last element of s that opens with open and
// closes with close, both included, trimmed; nil when there is none or it
// is empty.
func lastElement(s []byte, open, close string) []byte {
	// bytes.Index is vectorized, LastIndex is not: most texts hold no
	// such element, and are passed over at Index's speed.
	if bytes.Index(s, []byte(close)) < 0 {
		return nil
	}
	end := bytes.LastIndex(s, []byte(close))
	if end < 0 {
		return nil
	}
	start := bytes.LastIndex(s[:end], []byte(open))
	if start < 0 || len(bytes.TrimSpace(s[start+len(open):end])) == 0 {
		return nil
	}
	return s[start : end+len(close)]
}

// lastFence returns the trimmed body of the last complete fenced block,
// or nil.
func lastFence(s []byte) []byte {
	if bytes.Index(s, []byte("```")) < 0 {
		return nil
	}
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
	if bytes.Index(s, []byte(prefix)) < 0 {
		return -1
	}
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
	x.textCmd = true
	x.args = append(x.args, cmd...)
	x.argSpans = append(x.argSpans, len(x.args))
	for i, rest := 0, cmd; i < maxEchoWords && len(rest) > 0; i++ {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		end := bytes.IndexAny(rest, " \t\r\n")
		if end < 0 {
			end = len(rest)
		}
		if w := rest[:end]; len(w) >= 3 {
			x.args = append(x.args, w...)
			x.argSpans = append(x.argSpans, len(x.args))
		}
		rest = rest[end:]
	}
	x.label = append(x.label, name...)
}
