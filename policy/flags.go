package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/killswitch/killswitch/internal/outfile"
	"github.com/spf13/pflag"
)

// File flags.
//
// Every flag that names a file says whether the command reads it or writes
// it, as an annotation on the flag; GuardFiles then refuses, for every
// command and every policy alike, an output that is one of the inputs or
// another output, before anything is read (README "What killswitch will
// not do to your files"). A new file flag is one MarkInput or MarkOutput
// call, and TestNoOutputIsAnInput tries it against every other file flag.

// FileRole is the annotation key; its first value is RoleInput or
// RoleOutput, an optional second one a prefix the path follows
// ("sqlite:": only such values name a file).
const FileRole = "killswitch/file"

const (
	RoleInput  = "input"
	RoleOutput = "output"
)

// MarkInput marks flags whose values are files the command reads.
func MarkInput(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		must(fs.SetAnnotation(n, FileRole, []string{RoleInput}))
	}
}

// MarkOutput marks flags whose values are files the command writes.
func MarkOutput(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		must(fs.SetAnnotation(n, FileRole, []string{RoleOutput}))
	}
}

// MarkOutputDSN marks a flag whose value names a file it writes when it
// starts with prefix (--apply sqlite:PATH); other values are not files.
func MarkOutputDSN(fs *pflag.FlagSet, name, prefix string) {
	must(fs.SetAnnotation(name, FileRole, []string{RoleOutput, prefix}))
}

// must panics on a programming error: a flag marked that is not defined.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// policyKey annotates a flag a policy registered with the policy's name.
const policyKey = "killswitch/policy"

// RegisterFlags calls add for every registered policy (in order) with fs,
// and marks the flags each adds as that policy's: CheckFlags then refuses
// them with another policy. add returns false for a policy it skips.
func RegisterFlags(fs *pflag.FlagSet, add func(p *Policy) bool) {
	for _, p := range registry {
		before := map[string]bool{}
		fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
		if !add(p) {
			continue
		}
		fs.VisitAll(func(f *pflag.Flag) {
			if !before[f.Name] {
				must(fs.SetAnnotation(f.Name, policyKey, []string{p.Name}))
			}
		})
	}
}

// Owner returns the name of the policy that registered f, or "" for a
// flag of the command's own.
func Owner(f *pflag.Flag) string {
	if owner := f.Annotations[policyKey]; len(owner) > 0 {
		return owner[0]
	}
	return ""
}

// CheckFlags refuses a flag given on the command line that belongs to a
// policy other than p: it would be ignored, and a user who gives it
// expects it to count.
func CheckFlags(fs *pflag.FlagSet, p *Policy) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if owner := Owner(f); err == nil && owner != "" && owner != p.Name {
			err = fmt.Errorf("--%s is a setting of --policy %s: this %s runs the %s policy", f.Name, owner, fs.Name(), p.Name)
		}
	})
	return err
}

// namedFile is a path and the flag that gave it (nil for an argument).
type namedFile struct {
	flag *pflag.Flag
	path string
	dsn  bool // the path of a store's DSN (MarkOutputDSN), which may carry a password
}

// String is how messages name the file: as the user gave it.
func (n namedFile) String() string {
	switch {
	case n.flag == nil:
		return n.path
	case n.flag.Shorthand != "":
		return "-" + n.flag.Shorthand + " " + n.path
	}
	return "--" + n.flag.Name + " " + n.path
}

// flagFiles lists the files the flags of role name, flags in their order
// of definition, the values of a repeated flag in theirs.
func flagFiles(fs *pflag.FlagSet, role string) []namedFile {
	var out []namedFile
	fs.VisitAll(func(f *pflag.Flag) {
		a := f.Annotations[FileRole]
		if len(a) == 0 || a[0] != role {
			return
		}
		var vals []string
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		} else {
			vals = []string{f.Value.String()}
		}
		for _, v := range vals {
			if len(a) > 1 {
				if !strings.HasPrefix(v, a[1]) {
					continue
				}
				v = strings.TrimPrefix(v, a[1])
			}
			if v != "" && v != "-" {
				out = append(out, namedFile{f, v, len(a) > 1})
			}
		}
	})
	return out
}

// GuardFiles refuses an output that cannot be written (outfile.Check), or
// one that is one of the command's inputs (its
// arguments, extra, and the files of flags marked as inputs) or that is
// given as two outputs. Files are compared by device and inode
// (os.SameFile), so a hard link or another spelling of the path counts;
// outputs that do not exist yet are compared by their absolute path.
// Special files (/dev/null, a FIFO) are written through, never replaced,
// and so never refused.
func GuardFiles(fs *pflag.FlagSet, extra ...string) error {
	var ins []namedFile
	for _, a := range fs.Args() {
		ins = append(ins, namedFile{path: a})
	}
	for _, a := range extra {
		ins = append(ins, namedFile{path: a})
	}
	ins = append(ins, flagFiles(fs, RoleInput)...)
	outs := flagFiles(fs, RoleOutput)
	type stat struct {
		fi  os.FileInfo
		abs string
	}
	statOf := func(p string) (stat, bool) {
		fi, err := os.Stat(p)
		if err == nil {
			return stat{fi: fi}, fi.Mode().IsRegular()
		}
		abs, err := filepath.Abs(p)
		return stat{abs: abs}, err == nil
	}
	same := func(a, b stat) bool {
		if a.fi != nil && b.fi != nil {
			return os.SameFile(a.fi, b.fi)
		}
		return a.fi == nil && b.fi == nil && a.abs == b.abs
	}
	var seen []stat
	for i, o := range outs {
		// An output that cannot be written fails now, not after the
		// replay it would have held (a report already printed). A
		// store's DSN is left to the store, which masks its secrets.
		if !o.dsn {
			if err := outfile.Check(o.path); err != nil {
				return err
			}
		}
		st, ok := statOf(o.path)
		seen = append(seen, st)
		if !ok {
			continue
		}
		for _, in := range ins {
			if in.path == "" || in.path == "-" {
				continue
			}
			if is, ok := statOf(in.path); ok && is.fi != nil && same(st, is) {
				return fmt.Errorf("output %s is the input %s: refusing to overwrite it", o, in)
			}
		}
		for j := range i {
			if _, ok := statOf(outs[j].path); ok && same(st, seen[j]) {
				return fmt.Errorf("output %s is also output %s: give each its own file", o, outs[j])
			}
		}
	}
	return nil
}
