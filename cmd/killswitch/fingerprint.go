package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/report"
)

func cmdFingerprint(e *env, args []string) int {
	fs := newFlags(e, "fingerprint", "[flags] [TEXT | FILE | -] [TEXT2 | FILE2 | -]",
		"Shows how the kill switch sees one prompt: the text it extracts (when the input is a provider\n"+
			"request body), the normalized form and the 64-bit SimHash. With two inputs it also prints their\n"+
			"Hamming distance and whether they count as similar. An argument naming a file reads the file\n"+
			"(--text takes it as text); - (or no argument) reads standard input.")
	profileName := fs.String("profile", "spec", "detector profile: "+analyze.ProfileNames())
	asResponse := fs.Bool("response", false, "treat the input as a provider response body (hash its response text)")
	literal := fs.Bool("text", false, "take every argument as text, even one that names a file")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	profile, err := analyze.ParseProfile(*profileName)
	if err != nil {
		return errorf(e, "fingerprint", "%v", err)
	}
	inputs := fs.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if len(inputs) > 2 {
		return errorf(e, "fingerprint", "at most two inputs, got %d", len(inputs))
	}
	x := analyze.NewExtractor(profile)
	var results []analyze.Fingerprint
	stdinUsed := false
	for _, in := range inputs {
		text := []byte(in)
		if fi, err := os.Stat(in); err == nil && fi.Mode().IsRegular() && in != "-" && !*literal {
			// A path that names a file means the file (a request body, a
			// response body, or a prompt).
			if text, err = os.ReadFile(in); err != nil {
				return errorf(e, "fingerprint", "%v", err)
			}
		} else if in == "-" {
			if stdinUsed {
				return errorf(e, "fingerprint", "standard input named twice")
			}
			stdinUsed = true
			if text, err = io.ReadAll(e.stdin); err != nil {
				return errorf(e, "fingerprint", "reading standard input: %v", err)
			}
		}
		r, err := x.Fingerprint(text, *asResponse)
		if err != nil {
			return errorf(e, "fingerprint", "%v", err)
		}
		results = append(results, r)
	}
	w := e.stdout
	fmt.Fprintf(w, "profile: %s\n", profile)
	for i, r := range results {
		if len(results) > 1 {
			fmt.Fprintf(w, "\n[%d]\n", i+1)
		}
		fmt.Fprintf(w, "source:     %s\n", r.Source)
		if r.Source != "text" {
			fmt.Fprintf(w, "prompt:     %s\n", quoteLine(r.Prompt))
		}
		fmt.Fprintf(w, "normalized: %s\n", quoteLine(r.Normalized))
		if r.HasHash {
			fmt.Fprintf(w, "simhash:    %s\n", report.Hash(r.Hash))
		} else {
			fmt.Fprintf(w, "simhash:    none (%s)\n", r.NoHashWhy)
		}
		if r.ToolSig != "" {
			fmt.Fprintf(w, "tool sig:   %s\n", quoteLine(r.ToolSig))
		}
		for _, l := range r.Lines {
			fmt.Fprintf(w, "%-11s %s\n", l[0]+":", quoteValue(l[1]))
		}
	}
	if len(results) == 2 {
		a, b := results[0], results[1]
		if a.HasHash && b.HasHash {
			d := analyze.Distance(a.Hash, b.Hash)
			verdict := "similar"
			if d > analyze.SimilarDistance {
				verdict = "not similar"
			}
			fmt.Fprintf(w, "\ndistance: %d bits: %s (similar means at most %d bits)\n", d, verdict, analyze.SimilarDistance)
		} else {
			fmt.Fprintf(w, "\ndistance: none (an input without a hash is never similar)\n")
		}
	}
	return exitOK
}

// quoteValue quotes a value unless it is a plain word, number or hash.
func quoteValue(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.()+-", c)) {
			return quoteLine(s)
		}
	}
	if s == "" {
		return quoteLine(s)
	}
	return s
}

func quoteLine(s string) string {
	b := report.AppendString(nil, s)
	return string(b)
}
