// Package atomicfile replaces files durably: the one writer every package
// of intentjournal uses when a file must be either its old self or its
// complete new self after a crash (the recovery report, the Terraform
// importer's generated files, the fake cloud's state, the benchmark
// plots). The sequence is etcd's and bbolt's: write a temporary file in the
// same directory, fsync it, rename it over the target, fsync the directory.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrNotDurable reports that the new file is in place but its directory
// could not be fsynced: it may not survive a power loss. Write wraps it.
var ErrNotDurable = errors.New("atomicfile: the rename may not be durable")

// TempPattern is the os.CreateTemp pattern of Write's temporary files for
// path. A process that starts after a crash may remove the leftovers it
// matches in path's directory.
func TempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// Write replaces path with what write writes, with mode perm exactly,
// whatever the umask. It writes a temporary file in path's directory
// (through a 1 MiB buffer), fsyncs it, renames it over path and fsyncs the
// directory. A crash or an error leaves either the previous file at path or
// the complete new one, never a partial file; on error the temporary file
// is removed. When only the directory fsync fails, the new file is at path
// and the error wraps ErrNotDurable.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, TempPattern(path))
	if err != nil {
		return fmt.Errorf("create a temporary file beside %s: %w", path, err)
	}
	tmp, renamed := f.Name(), false
	defer func() {
		if err != nil && !renamed {
			_ = f.Close() // may be closed already; the first error wins
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrNotDurable, path, err)
	}
	return nil
}

// WriteFile is Write with data as the content.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}
