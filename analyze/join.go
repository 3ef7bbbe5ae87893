package analyze

// JoinSummaries combines the summaries of replays over disjoint sets of
// agents (one per agent, for a distributed replay) into the summary one
// replay over all of them yields: agents sorted by id, skips and totals
// recomputed. warnings replace the parts' warnings: a distributed replay
// numbers and orders them itself, in replay order. cfg is the replays'
// configuration. The parts must come from Finish and are not modified, but
// their agent timelines are shared with the result.
func JoinSummaries(cfg Config, parts []*Summary, warnings []Warning) *Summary {
	s := newSummary(cfg)
	for _, p := range parts {
		s.Agents = append(s.Agents, p.Agents...)
		s.Malformed += p.Malformed
		s.Controls += p.Controls
		s.ToolAgentKills += p.ToolAgentKills
		for _, sk := range p.Skips {
			s.skips[sk.Reason] += sk.Count
		}
	}
	for _, p := range parts {
		for _, c := range p.WarningCounts {
			s.warnCounts[c.Kind] += c.Count
		}
	}
	// warnings hold each part's first KeptWarnings of a kind, in replay
	// order: the first KeptWarnings of a kind overall are among them.
	var kept [numWarningKinds]int
	for _, w := range warnings {
		if kept[w.Kind]++; kept[w.Kind] <= KeptWarnings {
			s.Warnings = append(s.Warnings, w)
		}
	}
	s.finish()
	return &s
}
