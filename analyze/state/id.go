package state

import (
	"crypto/sha1"

	"github.com/killswitch/killswitch/ingest"
)

// NameUUID returns the name-based UUID (version 5: SHA-1) of name in
// namespace ns, in its canonical 36-character lower-case form (RFC 9562
// §5.5). Replay derives every id it writes this way, so that the same
// capture always yields the same ids.
func NameUUID(ns [16]byte, name string) string {
	u := nameUUID(ns, name)
	return ingest.FormatUUID(u[:])
}

func nameUUID(ns [16]byte, name string) [16]byte {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // variant 10
	return u
}
