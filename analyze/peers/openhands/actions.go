package openhands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/peers/conv"
)

// action is one action of a response and what its observation needs.
type action struct {
	ev Event
	id string // the tool call's id, to match its result
	// kind, label and fields make ev (build); thoughtAt is the index of
	// the thought field, -1 when the class has none.
	kind      Kind
	label     string
	fields    []string
	thoughtAt int
	// obs is the observation class its result becomes (0: none, as for
	// finish), and obsFields the action's fields the observation
	// repeats (a command, a path…).
	obs       Kind
	obsFields []string
}

// build makes the action's event from its fields.
func (a *action) build() {
	a.ev = NewEvent(a.kind, SourceAgent, a.label, a.fields...)
	if a.kind == IPythonRunCellAction {
		ip := IPythonRun(a.fields[0], "", 0)
		a.ev.editByReplace, a.ev.longCode, a.ev.alt = ip.editByReplace, ip.longCode, ip.alt
	}
}

// result is what the detector keeps of one tool result.
type result struct {
	id       string
	content  string // the hash of the text, as a field value
	isError  bool   // the text carries conversation_memory's error suffix
	exitCode int    // bash's "[The command completed with exit code N"; -1 without
	syntax   string // the text, when it reports a SyntaxError (the IPython checks read it)
}

const errorSuffix = "[Error occurred in processing last action]"

func newResult(r conv.Result) result {
	h := fieldHash(1, []string{r.Text})
	out := result{id: r.ID, content: string(h[:]), isError: strings.Contains(r.Text, errorSuffix), exitCode: exitCode(r.Text)}
	if strings.Contains(r.Text, "SyntaxError: ") {
		out.syntax = r.Text
	}
	return out
}

// exitCode is N of the last "[The command completed with exit code N" in
// s, or -1 (CmdOutputMetadata's default).
func exitCode(s string) int {
	const marker = "[The command completed with exit code "
	i := strings.LastIndex(s, marker)
	if i < 0 {
		return -1
	}
	rest := s[i+len(marker):]
	j := 0
	if j < len(rest) && rest[j] == '-' {
		j++
	}
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil {
		return -1
	}
	return n
}

// observation returns the observation r makes of a, ok false when a
// makes none.
func (a *action) observation(r *result) (Event, bool) {
	if r.isError {
		return NewEvent(ErrorObservation, SourceNone, "", r.content), true
	}
	switch a.obs {
	case 0:
		return Event{}, false
	case CmdOutputObservation:
		e := NewEvent(CmdOutputObservation, SourceNone, "", r.content, a.obsFields[0], F(r.exitCode))
		e.alt = fieldHash(0, []string{a.obsFields[0], F(r.exitCode)})
		return e, true
	case IPythonRunCellObservation:
		e := NewEvent(IPythonRunCellObservation, SourceNone, "", append([]string{r.content}, a.obsFields...)...)
		e.Content = r.syntax
		return e, true
	}
	return NewEvent(a.obs, SourceNone, "", append([]string{r.content}, a.obsFields...)...), true
}

// shellTools are other agents' shell tools, run as CmdRunActions (an
// extension: PEER-REPLAY.md).
var shellTools = map[string]bool{"bash": true, "shell": true, "sh": true, "run_shell_command": true, "shell_command": true,
	"execute_command": true, "run_command": true, "run_terminal_cmd": true, "terminal": true, "exec": true,
	"exec_command": true, "execute_powershell": true, "powershell": true}

// riskLevels are RISK_LEVELS: ActionSecurityRisk LOW, MEDIUM, HIGH.
var riskLevels = map[string]int{"LOW": 0, "MEDIUM": 1, "HIGH": 2}

// risk is set_security_risk: the level when valid, else UNKNOWN (-1).
func risk(args map[string]any) int {
	if s, ok := args["security_risk"].(string); ok {
		if r, ok := riskLevels[s]; ok {
			return r
		}
	}
	return -1
}

// canon is a Python value as == compares it: dicts in any key order,
// 1 and 1.0 alike.
func canon(v any) string {
	if v == nil {
		return F(nil)
	}
	return string(appendCanon(nil, v))
}

func str(args map[string]any, k, def string) (string, bool) {
	v, ok := args[k]
	if !ok {
		return def, false
	}
	s, isStr := v.(string)
	if !isStr {
		return canon(v), true
	}
	return s, true
}

// validationError is the ErrorObservation the controller adds when the
// agent's response cannot become actions.
func validationError(format string, a ...any) Event {
	return NewEvent(ErrorObservation, SourceNone, "", fmt.Sprintf(format, a...))
}

// responseToActions is function_calling.response_to_actions for one
// response: its actions, or the error observation that replaces them.
func responseToActions(t *conv.Turn) ([]action, *Event) {
	if len(t.Calls) == 0 {
		return []action{{ev: Message(SourceAgent, t.Text, true)}}, nil
	}
	var acts []action
	for i, c := range t.Calls {
		args, ok := decodeArgs(c.Args)
		if !ok {
			e := validationError("Failed to parse tool call arguments: %s", c.Args)
			return nil, &e
		}
		a, errEv := toAction(c.Name, args, t)
		if errEv != nil {
			return nil, errEv
		}
		a.id = c.ID
		if i == 0 && t.Text != "" {
			a.combineThought(t.Text)
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// combineThought is combine_thought for the response's first action.
func (a *action) combineThought(thought string) {
	if a.thoughtAt < 0 {
		return
	}
	if f := a.fields[a.thoughtAt]; f != "" {
		thought += "\n" + f
	}
	a.fields[a.thoughtAt] = thought
	a.build()
}

// toAction maps one tool call to its action as response_to_actions
// does, or to the validation error that replaces the response's actions.
func toAction(name string, args map[string]any, t *conv.Turn) (action, *Event) {
	missing := func(k string) *Event {
		e := validationError("Missing required argument %q in tool call %s", k, name)
		return &e
	}
	a := action{label: name, thoughtAt: -1}
	switch {
	case name == "execute_bash":
		cmd, ok := str(args, "command", "")
		if !ok {
			return a, missing("command")
		}
		isInput, _ := str(args, "is_input", "false")
		blocking := false
		if v, ok := args["timeout"]; ok {
			if !isFloat(v) {
				e := validationError("Invalid float passed to 'timeout' argument: %v", canon(v))
				return a, &e
			}
			blocking = true
		}
		a.kind, a.fields, a.thoughtAt = CmdRunAction, []string{cmd, F(isInput == "true"), "", F(blocking), F(risk(args))}, 2
		a.obs, a.obsFields = CmdOutputObservation, []string{cmd}
	case name == "execute_ipython_cell":
		code, ok := str(args, "code", "")
		if !ok {
			return a, missing("code")
		}
		a.kind, a.fields, a.thoughtAt = IPythonRunCellAction, []string{code, "", F(risk(args))}, 1
		a.obs, a.obsFields = IPythonRunCellObservation, []string{code}
	case name == "str_replace_editor":
		cmd, ok := str(args, "command", "")
		if !ok {
			return a, missing("command")
		}
		path, ok := str(args, "path", "")
		if !ok {
			return a, missing("path")
		}
		if cmd == "view" {
			a.kind, a.fields, a.thoughtAt = FileReadAction, []string{path, canon(args["view_range"]), ""}, 2
			a.obs, a.obsFields = FileReadObservation, []string{path}
			break
		}
		kw := map[string]string{}
		for k, v := range args {
			switch k {
			case "command", "path", "view_range", "security_risk":
			case "file_text", "old_str", "new_str", "insert_line":
				kw[k] = canon(v)
			default:
				e := validationError("Unexpected argument %s in tool call %s", k, name)
				return a, &e
			}
		}
		get := func(k string) string {
			if v, ok := kw[k]; ok {
				return v
			}
			return F(nil)
		}
		a.kind, a.thoughtAt = FileEditAction, 6
		a.fields = []string{path, cmd, get("file_text"), get("old_str"), get("new_str"), get("insert_line"), "", F(risk(args))}
		a.obs, a.obsFields = FileEditObservation, []string{path, get("old_str"), get("new_str")}
	case name == "edit_file":
		path, ok := str(args, "path", "")
		if !ok {
			return a, missing("path")
		}
		content, ok := str(args, "content", "")
		if !ok {
			return a, missing("content")
		}
		a.kind, a.thoughtAt = FileEditAction, 4
		a.fields = []string{path, content, canonOr(args, "start", 1), canonOr(args, "end", -1), ""}
		a.obs, a.obsFields = FileEditObservation, []string{path}
	case name == "think":
		th, _ := str(args, "thought", "")
		a.kind, a.fields, a.thoughtAt = AgentThinkAction, []string{th}, 0
		a.obs = AgentThinkObservation
	case name == "finish":
		msg, _ := str(args, "message", "")
		a.kind, a.fields, a.thoughtAt = AgentFinishAction, []string{msg, ""}, 1
	case name == "request_condensation":
		a.kind = CondensationRequestAction
	case name == "browser":
		code, ok := str(args, "code", "")
		if !ok {
			return a, missing("code")
		}
		a.kind, a.fields, a.thoughtAt = BrowseInteractiveAction, []string{code, "", F(risk(args))}, 1
		a.obs = BrowserOutputObservation
	case name == "task_tracker":
		cmd, ok := str(args, "command", "")
		if !ok {
			return a, missing("command")
		}
		list, hasList := args["task_list"]
		if cmd == "plan" && !hasList {
			return a, missing("task_list")
		}
		tasks, isList := list.([]any)
		if hasList && !isList {
			e := validationError("Invalid format for \"task_list\". Expected a list but got %T.", list)
			return a, &e
		}
		var norm []any
		for i, task := range tasks {
			m, ok := task.(map[string]any)
			if !ok {
				e := validationError("Unexpected task format in task_list: %T. Each task should be a dictionary.", task)
				return a, &e
			}
			norm = append(norm, map[string]any{"id": or(m, "id", fmt.Sprintf("task-%d", i+1)), "title": or(m, "title", "Untitled task"),
				"status": or(m, "status", "todo"), "notes": or(m, "notes", "")})
		}
		a.kind, a.fields, a.thoughtAt = TaskTrackingAction, []string{cmd, canon(norm), ""}, 2
		a.obs = TaskTrackingObservation
	case name == "delegate_to_browsing_agent":
		a.kind, a.fields, a.thoughtAt = AgentDelegateAction, []string{"BrowsingAgent", canon(args), ""}, 2
	case shellTools[strings.ToLower(name)] && shellCommand(args) != "":
		// An extension: another agent's shell tool, as OpenHands would
		// run it.
		cmd := shellCommand(args)
		a.kind, a.fields, a.thoughtAt = CmdRunAction, []string{cmd, F(false), "", F(false), F(-1)}, 2
		a.obs, a.obsFields = CmdOutputObservation, []string{cmd}
	case !t.HasTools || t.Offers(name):
		ca := canon(args)
		a.kind, a.fields, a.thoughtAt = MCPAction, []string{name, ca, ""}, 2
		a.obs, a.obsFields = MCPObservation, []string{name, ca}
	default:
		e := validationError("Tool %s is not registered. (arguments: %s). Please check the tool name and retry with an existing tool.", name, canon(args))
		return a, &e
	}
	a.build()
	return a, nil
}

func or(m map[string]any, k string, def any) any {
	if v, ok := m[k]; ok {
		return v
	}
	return def
}

func canonOr(m map[string]any, k string, def int) string {
	if v, ok := m[k]; ok {
		return canon(v)
	}
	return canon(float64(def))
}

// isFloat is whether Python's float() accepts v.
func isFloat(v any) bool {
	switch v := v.(type) {
	case float64, bool:
		return true
	case string:
		_, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil
	}
	return false
}

func shellCommand(args map[string]any) string {
	if s, ok := args["command"].(string); ok {
		return s
	}
	if s, ok := args["cmd"].(string); ok {
		return s
	}
	return ""
}
