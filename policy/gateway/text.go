package gateway

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/store/postgres"
)

// checkText refuses, before any state is written, a record whose text
// would reach PostgreSQL and that PostgreSQL text cannot hold (a NUL byte,
// bytes that are not UTF-8), naming the record's file:line and its field.
// Checked: the logged calls' tenant, API key, model and request body, and
// the applied freezes' tenant, key, by and reason — every text a
// statement takes from a record.
func checkText(decs []gateway.Decision, res *gateway.Result) error {
	for i := range decs {
		if err := checkCall(&decs[i]); err != nil {
			return err
		}
	}
	return checkFreezes(res)
}

func checkFields(pos ingest.Pos, fields ...[2]string) error {
	for _, f := range fields {
		if p := postgres.TextProblem(f[1]); p != "" {
			return fmt.Errorf("%s: %q %s: nothing written", pos, f[0], p)
		}
	}
	return nil
}

// checkCall checks the text a logged call's row takes from its record.
func checkCall(d *gateway.Decision) error {
	if !d.Logged {
		return nil
	}
	return checkFields(d.Source, [2]string{"tenant", d.Tenant}, [2]string{"api_key_id", d.APIKeyID},
		[2]string{"model", d.Model}, [2]string{"request", string(d.RequestJSON)})
}

// checkFreezes checks the text the applied freezes take from their records.
func checkFreezes(res *gateway.Result) error {
	for _, f := range res.Freezes {
		id := [2]string{"tenant", f.EntityID}
		if f.Entity == "key" {
			id[0] = "api_key_id"
		}
		if err := checkFields(f.Source, [2]string{"tenant", f.Tenant}, id, [2]string{"by", f.By}, [2]string{"reason", f.Reason}); err != nil {
			return err
		}
	}
	return nil
}
