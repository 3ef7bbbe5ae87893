package analyze

import (
	"sort"
	"time"

	"github.com/killswitch/killswitch/analyze/body"
	"github.com/killswitch/killswitch/ingest"
)

// Inventory describes what one capture holds, so that a user can see why
// it replays the way it does. Build it with NewInventory and Add, then
// Finish.
type Inventory struct {
	Name        string
	Format      string // as detected or forced by the caller
	Compression string
	BGZF        bool // gzip whose members are inflated in parallel

	Requests  int
	Controls  int
	Malformed int
	Skips     []SkipCount // by reason, most frequent first
	Errors    []string    // the first MaxInventoryErrors malformed-item messages

	First, Last time.Time
	OutOfOrder  int // records earlier than the one before them

	Agents []AgentCount // by request count, then id
	// AgentSources counts requests by where the reader found their agent
	// (Record.AgentFrom: "session.id", "user.id", "root span name", …);
	// empty when no reader said.
	AgentSources []NameCount
	APIs         []NameCount // request body dialects (body.API names), "unreadable" for bodies that do not parse
	Models       []NameCount
	Responses    int // requests with a response body
	Streamed     int // of which event streams
	Labelled     int // requests with a label
	Priced       int // requests with tokens or cost
	// NoText counts requests with neither prompt text (a request body
	// that does not parse, or has no user message text) nor response
	// text: nothing the spec profile can fingerprint.
	NoText int

	agents map[string]int
	from   map[string]int
	apis   map[string]int
	models map[string]int
	skips  map[string]int
	parser body.Parser
	hasTS  bool
}

// MaxInventoryErrors bounds how many malformed-item messages an Inventory keeps.
const MaxInventoryErrors = 20

// AgentCount is an agent and its requests.
type AgentCount struct {
	Agent    string
	Requests int
}

// NameCount is a name and how often it occurred.
type NameCount struct {
	Name  string
	Count int
}

// NewInventory starts an inventory of the capture name.
func NewInventory(name, format, compression string) *Inventory {
	return &Inventory{Name: name, Format: format, Compression: compression,
		agents: map[string]int{}, from: map[string]int{}, apis: map[string]int{}, models: map[string]int{}, skips: map[string]int{}}
}

// Add counts one record.
func (inv *Inventory) Add(rec *ingest.Record) {
	switch {
	case rec.Err != nil:
		inv.Malformed++
		if len(inv.Errors) < MaxInventoryErrors {
			inv.Errors = append(inv.Errors, rec.Err.Error())
		}
		return
	case rec.Skip != "":
		inv.skips[rec.Skip]++
		return
	}
	if inv.hasTS && rec.TS.Before(inv.Last) {
		inv.OutOfOrder++
	}
	if !inv.hasTS || rec.TS.Before(inv.First) {
		inv.First = rec.TS
	}
	if !inv.hasTS || rec.TS.After(inv.Last) {
		inv.Last = rec.TS
	}
	inv.hasTS = true
	if rec.Control != nil {
		inv.Controls++
		return
	}
	inv.Requests++
	inv.agents[rec.Agent]++
	if rec.AgentFrom != "" {
		inv.from[rec.AgentFrom]++
	}
	if rec.Label != ingest.LabelNone {
		inv.Labelled++
	}
	if rec.HasTokens || rec.HasCost {
		inv.Priced++
	}
	req, err := inv.parser.ParseRequest(rec.Request)
	model := rec.Model
	text := false
	if err != nil {
		inv.apis["unreadable"]++
	} else {
		inv.apis[req.API.String()]++
		text = req.HasPrompt
		if model == "" {
			model = req.Model
		}
	}
	if len(rec.Response) > 0 {
		inv.Responses++
		if resp, err := inv.parser.ParseResponse(rec.Response); err == nil {
			text = text || len(resp.Text) > 0
			if resp.Streamed {
				inv.Streamed++
			}
			if model == "" {
				model = resp.Model
			}
			if !rec.HasTokens && !rec.HasCost && resp.HasUsage {
				inv.Priced++
			}
		}
	}
	if model != "" {
		inv.models[model]++
	}
	if !text {
		inv.NoText++
	}
}

// Finish sorts the counts; the inventory must not be added to afterwards.
func (inv *Inventory) Finish() {
	for a, n := range inv.agents {
		inv.Agents = append(inv.Agents, AgentCount{a, n})
	}
	sort.Slice(inv.Agents, func(i, j int) bool {
		if inv.Agents[i].Requests != inv.Agents[j].Requests {
			return inv.Agents[i].Requests > inv.Agents[j].Requests
		}
		return inv.Agents[i].Agent < inv.Agents[j].Agent
	})
	inv.AgentSources = sortedCounts(inv.from)
	inv.APIs = sortedCounts(inv.apis)
	inv.Models = sortedCounts(inv.models)
	for r, n := range inv.skips {
		inv.Skips = append(inv.Skips, SkipCount{r, n})
	}
	sort.Slice(inv.Skips, func(i, j int) bool {
		if inv.Skips[i].Count != inv.Skips[j].Count {
			return inv.Skips[i].Count > inv.Skips[j].Count
		}
		return inv.Skips[i].Reason < inv.Skips[j].Reason
	})
}

func sortedCounts(m map[string]int) []NameCount {
	out := make([]NameCount, 0, len(m))
	for k, n := range m {
		out = append(out, NameCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}
