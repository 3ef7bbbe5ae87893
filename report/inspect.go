package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// InspectText renders inventories for a person: one block per capture.
func InspectText(w io.Writer, invs []*analyze.Inventory) error {
	for i, inv := range invs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", inv.Name)
		comp := ""
		if inv.Compression != "none" && inv.Compression != "" {
			comp = ", " + inv.Compression + " compressed"
		}
		switch {
		case inv.BGZF:
			comp += " (BGZF: its members are inflated in parallel)"
		case inv.Compression == ingest.CompressionGzip.String():
			comp += " (one gzip stream: inflated on one core; BGZF or zstd read faster)"
		}
		fmt.Fprintf(w, "  format:     %s%s\n", inv.Format, comp)
		fmt.Fprintf(w, "  records:    %d requests, %d control records, %d malformed, %d skipped\n",
			inv.Requests, inv.Controls, inv.Malformed, skipped(inv))
		if inv.Requests+inv.Controls > 0 {
			span := inv.Last.Sub(inv.First)
			fmt.Fprintf(w, "  time span:  %s .. %s (%s)\n", ingest.FormatTime(inv.First), ingest.FormatTime(inv.Last), span)
		}
		if inv.OutOfOrder > 0 {
			fmt.Fprintf(w, "  out of order: %d records are earlier than the one before them (replayed in file order)\n", inv.OutOfOrder)
		}
		if len(inv.Agents) > 0 {
			fmt.Fprintf(w, "  agents:     %d: %s\n", len(inv.Agents), agentList(inv.Agents, 8))
		}
		if len(inv.AgentSources) > 0 {
			fmt.Fprintf(w, "  agent from: %s (requests)\n", countList(inv.AgentSources, 6))
		}
		if len(inv.APIs) > 0 {
			fmt.Fprintf(w, "  bodies:     %s\n", countList(inv.APIs, 6))
		}
		if len(inv.Models) > 0 {
			fmt.Fprintf(w, "  models:     %s\n", countList(inv.Models, 6))
		}
		if inv.Requests > 0 {
			fmt.Fprintf(w, "  responses:  %d of %d requests (%d streamed); %d priced (tokens or cost); %d labelled\n",
				inv.Responses, inv.Requests, inv.Streamed, inv.Priced, inv.Labelled)
		}
		for _, s := range inv.Skips {
			fmt.Fprintf(w, "  skipped %d: %s\n", s.Count, s.Reason)
		}
		for _, e := range inv.Errors {
			fmt.Fprintf(w, "  malformed: %s\n", e)
		}
		if inv.Malformed > len(inv.Errors) {
			fmt.Fprintf(w, "  malformed: … and %d more\n", inv.Malformed-len(inv.Errors))
		}
	}
	return nil
}

func skipped(inv *analyze.Inventory) int {
	n := 0
	for _, s := range inv.Skips {
		n += s.Count
	}
	return n
}

func agentList(as []analyze.AgentCount, max int) string {
	var parts []string
	for i, a := range as {
		if i == max {
			parts = append(parts, fmt.Sprintf("… %d more", len(as)-max))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", Printable(a.Agent), a.Requests))
	}
	return strings.Join(parts, ", ")
}

func countList(cs []analyze.NameCount, max int) string {
	var parts []string
	for i, c := range cs {
		if i == max {
			parts = append(parts, fmt.Sprintf("… %d more", len(cs)-max))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Count))
	}
	return strings.Join(parts, ", ")
}

type jsonInventory struct {
	File        string      `json:"file"`
	Format      string      `json:"format"`
	Compression string      `json:"compression"`
	Inflate     string      `json:"inflate,omitempty"` // gzip: "parallel" (BGZF) or "sequential"
	Requests    int         `json:"requests"`
	Controls    int         `json:"control_records"`
	Malformed   int         `json:"malformed"`
	Skipped     []jsonSkip  `json:"skipped"`
	Errors      []string    `json:"errors"`
	First       *string     `json:"first"`
	Last        *string     `json:"last"`
	OutOfOrder  int         `json:"out_of_order"`
	AgentsJSON  []jsonCount `json:"agents"`
	AgentFrom   []jsonCount `json:"agent_from,omitempty"`
	APIs        []jsonCount `json:"bodies"`
	Models      []jsonCount `json:"models"`
	Responses   int         `json:"responses"`
	Streamed    int         `json:"streamed"`
	Priced      int         `json:"priced"`
	Labelled    int         `json:"labelled"`
}

type jsonCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// inflate says how a gzip capture is inflated ("" for any other).
func inflate(inv *analyze.Inventory) string {
	switch {
	case inv.BGZF:
		return "parallel"
	case inv.Compression == ingest.CompressionGzip.String():
		return "sequential"
	}
	return ""
}

// InspectJSON renders inventories as a JSON array.
func InspectJSON(w io.Writer, invs []*analyze.Inventory) error {
	out := make([]jsonInventory, 0, len(invs))
	for _, inv := range invs {
		j := jsonInventory{File: inv.Name, Format: inv.Format, Compression: inv.Compression, Inflate: inflate(inv),
			Requests: inv.Requests, Controls: inv.Controls, Malformed: inv.Malformed, Skipped: []jsonSkip{},
			Errors: append([]string{}, inv.Errors...), OutOfOrder: inv.OutOfOrder, AgentsJSON: []jsonCount{},
			APIs: counts(inv.APIs), Models: counts(inv.Models), Responses: inv.Responses, Streamed: inv.Streamed,
			Priced: inv.Priced, Labelled: inv.Labelled}
		if inv.Requests+inv.Controls > 0 {
			f, l := ingest.FormatTime(inv.First), ingest.FormatTime(inv.Last)
			j.First, j.Last = &f, &l
		}
		for _, s := range inv.Skips {
			j.Skipped = append(j.Skipped, jsonSkip{s.Reason, s.Count})
		}
		j.AgentFrom = counts(inv.AgentSources)
		if len(j.AgentFrom) == 0 {
			j.AgentFrom = nil
		}
		for _, a := range inv.Agents {
			j.AgentsJSON = append(j.AgentsJSON, jsonCount{a.Agent, a.Requests})
		}
		out = append(out, j)
	}
	return WriteJSON(w, out)
}

func counts(cs []analyze.NameCount) []jsonCount {
	out := []jsonCount{}
	for _, c := range cs {
		out = append(out, jsonCount{c.Name, c.Count})
	}
	return out
}
