package roo

import (
	"testing"

	"github.com/killswitch/killswitch/analyze/peers/jsjson"
)

var serializeSeeds = []string{
	`{}`, `{"a":1}`, `{"path":"src/a.go","line":3}`, `{"a":"x","b":{"c":[1,"2",{"d":null}],"e":true},"f":-1.5}`,
	`{"a":"q\"uo\\te\n","b":[]}`, `{"b":1,"a":2}`, `{"a":{"y":1,"x":2}}`, `{"1":"x"}`, `{"a":"é"}`,
	`{"cmd":"ls -la","cwd":"/tmp","env":{"A":"1","B":"2"}}`, `{"a":[{"b":"}"},"]",","]}`, `{"a":"\u0001"}`,
}

// TestSerializeCanonical: arguments both stringifies write back unchanged
// are serialized without a parse, exactly as the parsed path writes them;
// others take the parsed path.
func TestSerializeCanonical(t *testing.T) {
	fast := 0
	for _, args := range serializeSeeds {
		if checkSerialize(t, "read_file", args) {
			fast++
		}
	}
	if fast < 6 {
		t.Fatalf("%d seeds took the canonical path, want 6 or more", fast)
	}
}

// checkSerialize fails when Serialize and the parsed path differ, and
// reports whether args took the canonical path.
func checkSerialize(t *testing.T, name, args string) bool {
	t.Helper()
	got, ok := Serialize(name, args)
	want, wok := serializeParsed(name, args)
	if got != want || ok != wok {
		t.Fatalf("Serialize(%q, %q) = %q, %v; parsed: %q, %v", name, args, got, ok, want, wok)
	}
	return jsjson.Canonical(args, jsjson.Sorted)
}

// FuzzSerialize: any name and arguments serialize as the parsed path
// serializes them.
func FuzzSerialize(f *testing.F) {
	for _, s := range serializeSeeds {
		f.Add("tool", s)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		if args == "" {
			return // "{}" by then: a seed
		}
		checkSerialize(t, name, args)
	})
}
