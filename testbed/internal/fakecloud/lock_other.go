//go:build !unix

package fakecloud

import (
	"fmt"
	"os"
)

// lockFile opens path. Without flock there is no protection against a
// second server on the same state file.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("fakecloud: cannot open lock file: %w", err)
	}
	return f, nil
}

func unlockFile(f *os.File) error {
	if f == nil {
		return nil
	}
	return f.Close()
}
