package pq

import (
	"fmt"
	"io"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/parquet-go/parquet-go"
)

// canonicalRow is one row of the canonical layout that WriteRecords writes:
// flat columns under the SPEC §3 names, ts as TIMESTAMP(MICROS) in UTC,
// request and response as text, nulls for absent values, and the control
// record's settings in an optional kill_switch group.
type canonicalRow struct {
	TS         time.Time      `parquet:"ts,timestamp(microsecond:utc)"`
	Agent      string         `parquet:"agent,dict"`
	Event      string         `parquet:"event,optional,dict"`
	By         string         `parquet:"by,optional,dict"`
	KillSwitch *killSwitchRow `parquet:"kill_switch,optional"`
	Status     *int32         `parquet:"status,optional"`
	ID         string         `parquet:"id,optional"`
	Provider   string         `parquet:"provider,optional,dict"`
	Endpoint   string         `parquet:"endpoint,optional,dict"`
	Model      string         `parquet:"model,optional,dict"`
	Tenant     string         `parquet:"tenant,optional,dict"`
	APIKeyID   string         `parquet:"api_key_id,optional,dict"`
	Workflow   string         `parquet:"workflow,optional,dict"`
	Session    string         `parquet:"session,optional,dict"`
	LatencyMS  *int64         `parquet:"latency_ms,optional"`
	TokensIn   *int64         `parquet:"tokens_in,optional"`
	TokensOut  *int64         `parquet:"tokens_out,optional"`
	CostUSD    *float64       `parquet:"cost_usd,optional"`
	Label      string         `parquet:"label,optional,dict"`
	Request    *string        `parquet:"request,optional"`
	Response   *string        `parquet:"response,optional"`
}

type killSwitchRow struct {
	Enabled    *bool    `parquet:"enabled,optional"`
	WindowSize *int64   `parquet:"window_size,optional"`
	Threshold  *float64 `parquet:"threshold,optional"`
}

// writeBatch is how many rows WriteRecords converts before handing them to
// the Parquet writer, and rowGroupRows how many rows a row group holds.
const (
	writeBatch   = 1024
	rowGroupRows = 8192
)

// WriteRecords writes recs to w as a Snappy-compressed Parquet file in the
// canonical layout, which NewReader reads back into the same records (but
// for Pos, and for times, which keep microseconds). Records are written in
// the order given. A record with Err or Skip set is refused: the layout has
// no place for it. Strings left empty, and numbers whose Has* flag is
// false, are written as nulls; a Status of 0 too (it reads back as 200).
func WriteRecords(w io.Writer, recs []ingest.Record) error {
	return writeRecords(w, recs)
}

// writeRecords is WriteRecords with writer options added (tests vary page
// versions, codecs and sizes).
func writeRecords(w io.Writer, recs []ingest.Record, extra ...parquet.WriterOption) error {
	opts := append([]parquet.WriterOption{
		parquet.Compression(&parquet.Snappy),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.CreatedBy("killswitch", "", ""),
	}, extra...)
	pw := parquet.NewGenericWriter[canonicalRow](w, opts...)
	batch := make([]canonicalRow, 0, writeBatch)
	flush := func() error {
		if _, err := pw.Write(batch); err != nil {
			return err
		}
		batch = batch[:0]
		return nil
	}
	for i := range recs {
		row, err := canonical(&recs[i])
		if err != nil {
			return err
		}
		batch = append(batch, row)
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}

func canonical(rec *ingest.Record) (canonicalRow, error) {
	if rec.Err != nil {
		return canonicalRow{}, fmt.Errorf("%s: cannot write a malformed record: %w", rec.Pos, rec.Err)
	}
	if rec.Skip != "" {
		return canonicalRow{}, fmt.Errorf("%s: cannot write a skipped item (%s)", rec.Pos, rec.Skip)
	}
	row := canonicalRow{
		TS: rec.TS.UTC(), Agent: rec.Agent,
		ID: rec.ID, Provider: rec.Provider, Endpoint: rec.Endpoint, Model: rec.Model,
		Tenant: rec.Tenant, APIKeyID: rec.APIKeyID, Workflow: rec.Workflow, Session: rec.Session,
		Label: rec.Label.String(),
	}
	if rec.Status != 0 {
		s := int32(rec.Status)
		row.Status = &s
	}
	if c := rec.Control; c != nil {
		row.Event, row.By = c.Event.String(), c.By
		if k := c.KillSwitch; k.Enabled != nil || k.WindowSize != nil || k.Threshold != nil {
			row.KillSwitch = &killSwitchRow{Enabled: k.Enabled, Threshold: k.Threshold}
			if k.WindowSize != nil {
				n := int64(*k.WindowSize)
				row.KillSwitch.WindowSize = &n
			}
		}
	} else {
		if rec.Request != nil {
			s := string(rec.Request)
			row.Request = &s
		}
		if rec.Response != nil {
			s := string(rec.Response)
			row.Response = &s
		}
	}
	if rec.HasLatency {
		row.LatencyMS = &rec.LatencyMS
	}
	if rec.HasTokens {
		row.TokensIn, row.TokensOut = &rec.TokensIn, &rec.TokensOut
	}
	if rec.HasCost {
		row.CostUSD = &rec.CostUSD
	}
	return row, nil
}
