package loop

import (
	"fmt"
	"os"
	"sort"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// loadSettings reads the loop kill switch's settings file
// (analyze.ParseSettingsFile): its errors name file:line:column and key.
func loadSettings(path string) (def ingest.KillSwitchPatch, agents map[string]ingest.KillSwitchPatch, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return def, nil, err
	}
	sf, err := analyze.ParseSettingsFile(path, data)
	return sf.Default, sf.Agents, err
}

// applySettings builds the per-agent settings: built-in defaults, then the
// file's default, then explicit flags; each agent's entry patches that.
func applySettings(cfg *analyze.Config, fileDef ingest.KillSwitchPatch, flags ingest.KillSwitchPatch, agents map[string]ingest.KillSwitchPatch) error {
	cfg.Default = cfg.Default.Apply(fileDef).Apply(flags)
	if err := cfg.Default.Validate(); err != nil {
		return err
	}
	names := make([]string, 0, len(agents))
	for n := range agents {
		names = append(names, n)
	}
	sort.Strings(names)
	cfg.Agents = map[string]analyze.Settings{}
	for _, n := range names {
		s := cfg.Default.Apply(agents[n])
		if err := s.Validate(); err != nil {
			return fmt.Errorf("agent %q: %v", n, err)
		}
		cfg.Agents[n] = s
	}
	return nil
}
