package logs

import (
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Trace exports (OpenInference, Vercel AI SDK) hold spans in a tree: an
// agent span over chain spans over LLM spans, and often an LLM span of a
// framework over the LLM span of the provider client it calls. This file
// holds what every trace reader does with the tree once its spans are
// decoded: which LLM spans count (a call wrapped by another LLM span is
// counted once, at the innermost span), which agent each call belongs to,
// and the order of the records.

// tspan is one span of a trace export, as a reader of a trace format
// decoded it. The reader sets call or skip (or err) for each span.
type tspan struct {
	pos                       ingest.Pos
	name                      string
	traceID, spanID, parentID string
	start                     time.Time
	startErr                  error     // the start time is missing or unreadable
	end                       time.Time // zero when unknown
	failed                    bool      // the span's status is an error
	attrs                     obj       // attributes by (flattened) name
	// lists are attribute lists read whole (OIParquetReader): the tree
	// unflatten would rebuild from the names prefix+"N…", by prefix.
	lists obj
	order int // index in the input, for ties

	call bool // an LLM call, if no call span below it
	// byName: a call span that is a wrapper by its name (a Vercel AI SDK
	// function span) whenever its trace holds a call span that is not,
	// whether or not the export kept the parent links between them.
	byName bool
	// kindSet: the span_kind column of a span table decided the kind.
	kindSet bool
	skip    string // why the span is no LLM call (when !call)
	err     error  // a malformed span: nothing else is read

	// wrapped is the reason a call span is skipped because call spans
	// below it are the calls (set by markWrappers).
	wrapped string
	// agentKeys are the attributes that name the agent, in order,
	// looked up on the span and then on its ancestors.
	agentKeys []agentKey
}

// agentKey is an attribute that names an agent and what inspect calls it.
type agentKey struct{ attr, from string }

// Agent sources, as Record.AgentFrom names them.
const (
	fromSession  = "session.id"
	fromUser     = "user.id"
	fromRootName = "root span name"
	fromTraceID  = "trace id"
	fromFlag     = "--agent"
)

// spanTree indexes the spans of one input by span id (a later duplicate
// id is ignored: its own record still counts).
type spanTree struct {
	byID map[string]*tspan
}

// maxDepth bounds walks up the tree (it also ends a cycle of parent ids).
const maxDepth = 64

func newSpanTree(spans []*tspan) *spanTree {
	t := &spanTree{byID: make(map[string]*tspan, len(spans))}
	for _, s := range spans {
		if s.err == nil && s.spanID != "" && t.byID[s.spanID] == nil {
			t.byID[s.spanID] = s
		}
	}
	return t
}

func (t *spanTree) parent(s *tspan) *tspan {
	if s.parentID == "" || s.parentID == s.spanID {
		return nil
	}
	return t.byID[s.parentID]
}

// markWrappers sets wrapped on every call span that has a call span below
// it: the inner span is the provider's call, the outer one the framework's
// view of the same call (or of several: a Vercel ai.generateText over the
// doGenerate of each step). why says what the skip reason reads.
// A call span marked byName is also a wrapper when its trace (spans of
// the same trace id) holds a call span not so marked.
func (t *spanTree) markWrappers(spans []*tspan, why func(outer *tspan) string) {
	var inner map[string]bool // trace ids holding a call that is no wrapper by name
	for _, s := range spans {
		if s.err != nil || !s.call {
			continue
		}
		if !s.byName {
			if inner == nil {
				inner = map[string]bool{}
			}
			inner[s.traceID] = true
		}
		p := t.parent(s)
		for depth := 0; p != nil && depth < maxDepth; depth++ {
			if p.call && p.wrapped == "" && p != s {
				p.wrapped = why(p)
			}
			p = t.parent(p)
		}
	}
	for _, s := range spans {
		if s.err == nil && s.call && s.byName && s.wrapped == "" && inner[s.traceID] {
			s.wrapped = why(s)
		}
	}
}

// ancestry answers a call span's lookups up its trace: a spanTree, or a
// span's row in a first pass's plan (planAncestors).
type ancestry interface {
	// agent derives the call's agent and where it came from.
	agent(s *tspan) (agent, from string)
	// inherited returns the text attribute attr of s or of its nearest
	// ancestor that has it; "" when none has.
	inherited(s *tspan, attr string) string
}

// agent derives a call's agent: the first of the span's agent keys set on
// the span or an ancestor, else the name of the trace's root span (the
// top of the chain of parents found in the input), else the trace id,
// else "default". It returns the agent and where it came from.
func (t *spanTree) agent(s *tspan) (agent, from string) {
	root := s
	for depth := 0; depth < maxDepth; depth++ {
		p := t.parent(root)
		if p == nil {
			break
		}
		root = p
	}
	rootName := ""
	if root.parentID == "" {
		rootName = root.name
	}
	return pickAgent(t, s, rootName)
}

// pickAgent is agent once the root's name is known ("" when the root
// has a parent id or no name).
func pickAgent(a ancestry, s *tspan, rootName string) (agent, from string) {
	for _, k := range s.agentKeys {
		if v := a.inherited(s, k.attr); v != "" {
			return v, k.from
		}
	}
	if rootName != "" {
		return rootName, fromRootName
	}
	if s.traceID != "" {
		return s.traceID, fromTraceID
	}
	return "default", fromTraceID
}

// inherited returns the text attribute attr of s or of its nearest
// ancestor that has it; "" when none has.
func (t *spanTree) inherited(s *tspan, attr string) string {
	for depth := 0; s != nil && depth <= maxDepth; depth++ {
		if v := str(s.attrs[attr]); v != "" {
			return v
		}
		s = t.parent(s)
	}
	return ""
}

// spanRecords turns decoded spans into records, in input order: a
// malformed span is a bad record, a span no call or wrapping calls is a
// skipped one, and build makes the record of each counted call (Pos, TS,
// Agent and AgentFrom are set by spanRecords, and Session when build left
// it empty: the session.id of the span or its nearest ancestor).
func spanRecords(spans []*tspan, t ancestry, opt Options, build func(s *tspan, rec *ingest.Record)) []item {
	items := make([]item, 0, len(spans))
	for _, s := range spans {
		items = append(items, item{i: s.order, at: s.start, rec: spanRecord(s, t, opt, build)})
	}
	return items
}

// spanRecord is the record spanRecords makes of one span.
func spanRecord(s *tspan, t ancestry, opt Options, build func(s *tspan, rec *ingest.Record)) *ingest.Record {
	switch {
	case s.err != nil:
		return bad(s.pos, "%v", s.err)
	case !s.call:
		return skip(s.pos, s.skip)
	case s.wrapped != "":
		return skip(s.pos, s.wrapped)
	case s.startErr != nil:
		return bad(s.pos, "start time: %v", s.startErr)
	}
	rec := &ingest.Record{Pos: s.pos, TS: s.start, Status: 200}
	build(s, rec)
	if opt.Agent != "" {
		rec.Agent, rec.AgentFrom = opt.Agent, fromFlag
	} else {
		rec.Agent, rec.AgentFrom = t.agent(s)
	}
	if rec.Session == "" {
		rec.Session = t.inherited(s, "session.id")
	}
	return rec
}

// latency sets rec's latency from the span's end, when it is not before
// the start.
func latency(rec *ingest.Record, start, end time.Time) {
	if !end.IsZero() && !end.Before(start) {
		rec.LatencyMS, rec.HasLatency = end.Sub(start).Round(time.Millisecond).Milliseconds(), true
	}
}
