package terraform

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Files of the local backend.
const (
	stateFile    = "terraform.tfstate"
	lockInfoFile = ".terraform.tfstate.lock.info"
)

// LockInfo is the local backend's lock info file.
type LockInfo struct {
	ID        string `json:"ID"`
	Operation string `json:"Operation"`
	Info      string `json:"Info"`
	Who       string `json:"Who"`
	Version   string `json:"Version"`
	Created   string `json:"Created"`
	Path      string `json:"Path"`
}

// checkLock inspects the local backend's lock of the workspace in dir.
// tofu and terraform hold a POSIX record lock (fcntl) on terraform.tfstate
// while they run, and write .terraform.tfstate.lock.info beside it. The
// kernel drops the record lock when the holder dies, but the info file
// stays: that is a stale lock. checkLock returns a *LockError for a held
// lock and for a stale one, and never removes anything.
func checkLock(dir, cli string) error {
	infoPath := filepath.Join(dir, lockInfoFile)
	raw, err := os.ReadFile(infoPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read lock info %s: %w", infoPath, err)
	}
	var info LockInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		info.ID = "(unreadable)"
	}
	pid, err := lockHolder(filepath.Join(dir, stateFile))
	if err != nil {
		return err
	}
	le := &LockError{Dir: dir, Info: info, HolderPID: pid}
	if pid == 0 {
		// `tofu force-unlock` answers "LocalState not locked" here: the
		// record lock is already free, only the info file is left.
		le.Fix = fmt.Sprintf("check that no %s process works in %s, then remove the stale lock info: rm %s (with a remote backend: %s -chdir=%s force-unlock %s)",
			filepath.Base(cli), dir, infoPath, cli, dir, info.ID)
	} else {
		le.Fix = fmt.Sprintf("wait for process %d to finish; if it hangs, stop it (kill %d), which releases the lock; with a remote backend clear the lock with: %s -chdir=%s force-unlock %s",
			pid, pid, cli, dir, info.ID)
	}
	return le
}

// lockHolder returns the PID of the process holding a POSIX write lock on
// path, or 0 when none does (or path does not exist).
func lockHolder(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cannot open %s to test its lock: %w", path, err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return 0, fmt.Errorf("cannot test the lock of %s: %w", path, err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0, nil
	}
	return int(lk.Pid), nil
}
