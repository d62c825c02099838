//go:build !linux

package terraform

import "time"

// cliGroup returns 0: outside Linux tfexec starts the CLI in this process's
// own group, so there is no group of the CLI's to end.
func cliGroup(error) int { return 0 }

// endGroup does nothing outside Linux; cliGroup names no group there.
func endGroup(int, time.Duration, time.Duration) (bool, error) { return false, nil }
