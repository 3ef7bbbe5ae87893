package analyze

import (
	"crypto/sha1"
	"encoding/hex"
)

// NameUUID returns the name-based UUID (version 5: SHA-1) of name in
// namespace ns, in its canonical 36-character lower-case form (RFC 9562
// §5.5). Replay derives every id it writes this way, so that the same
// capture always yields the same ids.
func NameUUID(ns [16]byte, name string) string {
	u := nameUUID(ns, name)
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
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
