package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// loadSettings reads a settings file:
//
//	{"default": {"enabled": true, "window_size": 20, "threshold": 10},
//	 "agents": {"billing-bot": {"threshold": 12}, "reporter": {"enabled": false}}}
//
// "default" patches cfg.Default; each agent's entry patches the default. The
// patch objects take the keys of control records' "kill_switch". Unknown
// keys are errors naming the file and the key.
func loadSettings(path string) (def ingest.KillSwitchPatch, agents map[string]ingest.KillSwitchPatch, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return def, nil, err
	}
	v, err := fastjson.ParseBytes(data)
	if err != nil {
		return def, nil, fmt.Errorf("%s: not JSON: %v", path, err)
	}
	o, err := v.Object()
	if err != nil {
		return def, nil, fmt.Errorf("%s: want a JSON object with \"default\" and \"agents\"", path)
	}
	agents = map[string]ingest.KillSwitchPatch{}
	o.Visit(func(k []byte, v *fastjson.Value) {
		if err != nil {
			return
		}
		switch string(k) {
		case "default":
			if def, err = ingest.ParseKillSwitch(v.MarshalTo(nil)); err != nil {
				err = fmt.Errorf("%s: default: %v", path, err)
			}
		case "agents":
			ao, e := v.Object()
			if e != nil {
				err = fmt.Errorf("%s: agents: want an object of agent id → settings", path)
				return
			}
			ao.Visit(func(name []byte, v *fastjson.Value) {
				if err != nil {
					return
				}
				p, e := ingest.ParseKillSwitch(v.MarshalTo(nil))
				if e != nil {
					err = fmt.Errorf("%s: agents.%s: %v", path, name, e)
					return
				}
				agents[string(name)] = p
			})
		default:
			err = fmt.Errorf("%s: unknown key %q (want \"default\" and \"agents\")", path, k)
		}
	})
	return def, agents, err
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
