package loop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/policy"
)

// TestLabelsReadOnce: `sweep --profiles spec,progress --labels F` reads F
// once; every profile's configuration holds the same labels.
func TestLabelsReadOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels.csv")
	if err := os.WriteFile(path, []byte("agent,label\na,loop\nb,legit\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	f := newSweep(fs).(*sweepFlags)
	if err := fs.Parse([]string{"--profiles", "spec,progress", "--labels", path}); err != nil {
		t.Fatal(err)
	}
	ps, err := f.profileList()
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := f.configs(ps, &policy.SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != 2 || cfgs[0].Labels == nil || cfgs[0].Labels != cfgs[1].Labels {
		t.Fatalf("labels %p and %p: want one read, shared", cfgs[0].Labels, cfgs[1].Labels)
	}
	if l := cfgs[1].Labels.Entries; len(l) != 2 || l[0].Agent != "a" {
		t.Fatalf("entries %+v", l)
	}
}
