package terraform_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/intentjournal/intentjournal/recovery/terraform"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
)

// The environment of a test binary that stands in for the CLI (see
// TestMain): the real CLI, and the directory where it keeps what each plan
// printed.
const (
	recorderCLIEnv = "INTENTJOURNAL_TEST_RECORD_CLI"
	recorderDirEnv = "INTENTJOURNAL_TEST_RECORD_DIR"
)

// TestMain runs the tests, or, re-executed by an Importer as its CLI
// (recordingCLI), runs the real CLI and keeps a copy of what each plan
// printed: the Importer's own plans are what the tests observe, and the
// Importer has no hook for that.
func TestMain(m *testing.M) {
	if cli := os.Getenv(recorderCLIEnv); cli != "" {
		os.Exit(recordCLI(cli, os.Getenv(recorderDirEnv), os.Args[1:]))
	}
	os.Exit(m.Run())
}

// recordCLI runs cli with args. For plan it copies the CLI's standard output
// (the -json UI stream that tfexec hands the Importer) into the next
// plan-NNNN.out file of dir, and forwards SIGINT and SIGTERM; any other
// command replaces this process.
func recordCLI(cli, dir string, args []string) int {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, recorderCLIEnv+"=") || strings.HasPrefix(kv, recorderDirEnv+"=")
	})
	if len(args) == 0 || args[0] != "plan" {
		err := syscall.Exec(cli, append([]string{cli}, args...), env)
		fmt.Fprintf(os.Stderr, "recorder: exec %s: %v\n", cli, err)
		return 125
	}
	var f *os.File
	for n := 1; f == nil; n++ {
		var err error
		f, err = os.OpenFile(filepath.Join(dir, fmt.Sprintf("plan-%04d.out", n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil && !errors.Is(err, os.ErrExist) {
			fmt.Fprintf(os.Stderr, "recorder: %v\n", err)
			return 125
		}
	}
	defer f.Close()
	cmd := exec.Command(cli, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, io.MultiWriter(os.Stdout, f), os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "recorder: %v\n", err)
		return 125
	}
	go func() {
		for s := range sig {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "recorder: %v\n", err)
	return 125
}

// recorder is where a recording CLI keeps the output of each plan.
type recorder struct{ dir string }

// recordingCLI returns this test binary as a CLI that runs cli and records
// what each plan printed, and the Option that points it at cli and rec.
func recordingCLI(t testing.TB, cli string) (string, terraform.Option, *recorder) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{dir: t.TempDir()}
	return self, terraform.WithEnv(map[string]string{recorderCLIEnv: cli, recorderDirEnv: rec.dir}), rec
}

// plans returns the standard output of each plan so far, in order.
func (rec *recorder) plans(t testing.TB) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(rec.dir, "plan-*.out"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	out := make([][]byte, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// recordingImporter returns an Importer for Networks in a new workspace,
// like rig.importer, whose plans rec records.
func (r *rig) recordingImporter(t testing.TB, opts ...terraform.Option) (*terraform.Importer, *recorder) {
	t.Helper()
	cli, env, rec := recordingCLI(t, r.cli)
	opts = append([]terraform.Option{terraform.WithFilesystemMirror(r.mirror), terraform.WithProviderConfig(tftest.ProviderBlock(r.fc.URL)), env}, opts...)
	im, err := terraform.New(t.TempDir(), cli, networkType, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return im, rec
}
