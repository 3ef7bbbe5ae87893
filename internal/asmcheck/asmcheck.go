// Package asmcheck reads Go assembly for one mistake that costs more than
// the vector code saves: a legacy SSE instruction (no VEX or EVEX prefix:
// MOVQ AX, X1, PCLMULQDQ, PADDB) run while the upper halves of the vector
// registers are dirty, that is after a 256- or 512-bit instruction and
// before VZEROUPPER. Some processors then pay a state transition, or a
// merge with the upper bits, on every such instruction; on the machine
// that found it (a virtual Xeon with AVX-512), two legacy instructions in
// jsonsimd.SkipContainer's 64-byte loop made it run at 340 MB/s instead of
// 6 GB/s, and the whole replay at half its speed. The fix is the VEX form
// (VMOVQ, VPCLMULQDQ), which never mixes states.
//
// It also finds a RET reached with the upper halves dirty: the Go code
// returned to runs legacy SSE (the runtime zeroes with MOVUPS X15).
//
// The check reads each function's instructions in text order, macros
// expanded (#define NAME(args) with a body of ';'-separated instructions).
// Text order is an approximation of control flow: a jump from dirty code
// back to legacy code written before it is not seen, so vector blocks
// end in VZEROUPPER before they jump anywhere (as simhash's do).
package asmcheck

import (
	"fmt"
	"regexp"
	"strings"
)

// A Finding is a legacy SSE instruction, or a RET, met with the upper
// halves dirty.
type Finding struct {
	Line  int    // 1-based line of the instruction (of the macro's use)
	Func  string // the TEXT symbol it is in
	Instr string // the instruction, as written (macro expanded)
	Dirty int    // the line of the wide instruction that made the state dirty
}

func (f Finding) String() string {
	if mnemonic(f.Instr) == "RET" {
		return fmt.Sprintf("line %d (%s): returns with the upper halves dirty since line %d: VZEROUPPER before it", f.Line, f.Func, f.Dirty)
	}
	return fmt.Sprintf("line %d (%s): %q is legacy SSE with the upper halves dirty since line %d: use its VEX form, or VZEROUPPER before it",
		f.Line, f.Func, f.Instr, f.Dirty)
}

var (
	wideReg   = regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)
	legacyReg = regexp.MustCompile(`\bX([0-9]|1[0-5])\b`)
	macroUse  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*$`)
	define    = regexp.MustCompile(`^#define\s+([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?\s*(.*)$`)
)

type macro struct {
	params []*regexp.Regexp // each parameter as a whole word
	body   []string         // instructions, parameters unsubstituted
}

// Check returns the findings in src, a Go assembly file, in line order.
func Check(src string) []Finding {
	lines := strings.Split(src, "\n")
	macros := map[string]macro{}
	var out []Finding
	fn := ""
	dirty := 0 // line of the last wide instruction, 0 when clean
	for i := 0; i < len(lines); i++ {
		line := stripComment(lines[i])
		n := i + 1
		if m := define.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			text := m[4]
			for strings.HasSuffix(strings.TrimSpace(text), `\`) && i+1 < len(lines) {
				text = strings.TrimSuffix(strings.TrimSpace(text), `\`) + "\n"
				i++
				text += stripComment(lines[i])
			}
			var params []*regexp.Regexp
			if m[2] != "" {
				for _, p := range strings.Split(m[3], ",") {
					params = append(params, regexp.MustCompile(`\b`+regexp.QuoteMeta(strings.TrimSpace(p))+`\b`))
				}
			}
			macros[m[1]] = macro{params: params, body: instructions(text)}
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "TEXT") {
			fn = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(t, "TEXT"), ",", 2)[0])
			dirty = 0
			continue
		}
		if fn == "" {
			continue
		}
		for _, ins := range expand(instructions(line), macros, 0) {
			op := mnemonic(ins)
			switch {
			case op == "VZEROUPPER" || op == "VZEROALL":
				dirty = 0
			case wideReg.MatchString(ins):
				dirty = n
			case dirty != 0 && !strings.HasPrefix(op, "V") && !strings.HasPrefix(op, "K") && legacyReg.MatchString(ins):
				out = append(out, Finding{Line: n, Func: fn, Instr: ins, Dirty: dirty})
			case op == "RET":
				// The Go code the function returns to runs legacy SSE
				// (the runtime zeroes memory with MOVUPS X15): the upper
				// halves must be clean. What follows a RET is reached by
				// a jump from a state the text does not say.
				if dirty != 0 {
					out = append(out, Finding{Line: n, Func: fn, Instr: ins, Dirty: dirty})
				}
				dirty = 0
			}
		}
	}
	return out
}

// stripComment removes a // comment from an assembly line.
func stripComment(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		return s[:i]
	}
	return s
}

// instructions splits text into its instructions: one a line or a
// ';'-separated part, labels and blank parts dropped.
func instructions(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for _, p := range strings.Split(l, ";") {
			p = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), `\`))
			if k := strings.Index(p, ":"); k >= 0 && !strings.ContainsAny(p[:k], " \t(") {
				p = strings.TrimSpace(p[k+1:]) // a label
			}
			if p != "" && !strings.HasPrefix(p, "#") {
				out = append(out, p)
			}
		}
	}
	return out
}

// expand replaces the uses of macros among ins by their bodies, arguments
// substituted, recursively (to a depth of 8).
func expand(ins []string, macros map[string]macro, depth int) []string {
	var out []string
	for _, in := range ins {
		m := macroUse.FindStringSubmatch(in)
		mac, ok := macros[mnemonicOf(m)]
		if !ok || depth > 8 {
			out = append(out, in)
			continue
		}
		args := splitArgs(m[3])
		var body []string
		for _, b := range mac.body {
			for j, p := range mac.params {
				if j < len(args) {
					b = p.ReplaceAllLiteralString(b, args[j])
				}
			}
			body = append(body, b)
		}
		out = append(out, expand(body, macros, depth+1)...)
	}
	return out
}

func mnemonicOf(m []string) string {
	if m == nil {
		return ""
	}
	return m[1]
}

// splitArgs splits a macro call's arguments at the commas outside
// parentheses.
func splitArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	level, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			level++
		case ')':
			level--
		case ',':
			if level == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// mnemonic returns the instruction's operation, suffixes such as .Z kept
// off.
func mnemonic(ins string) string {
	op := strings.Fields(ins)[0]
	if k := strings.IndexByte(op, '.'); k >= 0 {
		op = op[:k]
	}
	return strings.ToUpper(op)
}
