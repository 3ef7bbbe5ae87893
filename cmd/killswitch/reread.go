package main

import "os"

// rereadable reports whether every path is a regular file, which a second
// pass can read again (not standard input, a pipe or a device).
func rereadable(paths []string) bool {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if p == "-" || err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}
