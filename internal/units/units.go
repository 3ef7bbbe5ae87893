// Package units parses the sizes flags take.
package units

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize parses a byte size: a whole number with an optional unit (B,
// KiB, MiB, GiB, KB, MB, GB).
func ParseSize(s string) (int, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := s, int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is not a size (want e.g. 64MiB, 1GiB, 4096)", s)
	}
	return int(n * mult), nil
}
