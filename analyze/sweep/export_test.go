package sweep

// KeepAllKills makes outcomes keep every kill until the returned function
// restores the default, so that tests can compare each one with a replay.
func KeepAllKills() (restore func()) {
	old := outcomeKills
	outcomeKills = 1 << 30
	return func() { outcomeKills = old }
}
