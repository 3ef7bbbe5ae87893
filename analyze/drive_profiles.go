package analyze

import "github.com/killswitch/killswitch/ingest"

// DriveProfiles is Drive for several profiles over one read of src: every
// record is read (and decompressed, and split into its bodies) once, each
// profile extracts its features from it on the same workers, and step is
// handed the record with one Features per profile, fs[i] being what
// ps[i]'s Extractor made (zero for malformed, skipped and control records,
// as Drive hands them). fs is valid only during the call. Extraction runs
// on workers goroutines (≤ 0: the default, as Drive's) ahead of step, in input order,
// so what step sees is the same at any parallelism and the same, profile by
// profile, as Drive(src, ps[i], …) would hand it. The returned error is
// src's I/O error or step's.
func DriveProfiles(src ingest.Reader, ps []*Profile, workers int, step func(rec *ingest.Record, fs []Features) error) error {
	if len(ps) == 1 {
		fs := make([]Features, 1)
		return Drive(src, ps[0], workers, func(rec *ingest.Record, f *Features) error {
			fs[0] = *f
			return step(rec, fs)
		})
	}
	zero := make([]Features, len(ps)) // what a record without features gets; step must not change it
	return Drive(src, profilesOf(ps), workers, func(rec *ingest.Record, f *Features) error {
		fs, _ := f.Ext.([]Features)
		if fs == nil {
			clear(zero)
			fs = zero
		}
		return step(rec, fs)
	})
}

// profilesOf returns the profile through which Drive extracts, once per
// record, the features of every profile of ps: its Features hold them in
// Ext, as a []Features in the order of ps. Its extractor holds one
// Extractor per profile (x.Ext), so each keeps its own parser state per
// goroutine, as under Drive.
func profilesOf(ps []*Profile) *Profile {
	return &Profile{
		Name: "profiles",
		Extract: func(x *Extractor, rec *ingest.Record) Features {
			xs, _ := x.Ext.([]*Extractor)
			if xs == nil {
				xs = make([]*Extractor, len(ps))
				for i, p := range ps {
					xs[i] = NewExtractor(p)
				}
				x.Ext = xs
			}
			fs := make([]Features, len(ps))
			for i, px := range xs {
				fs[i] = px.Extract(rec)
			}
			return Features{Ext: fs}
		},
	}
}
