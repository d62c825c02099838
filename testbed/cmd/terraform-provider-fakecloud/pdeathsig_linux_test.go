//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// envChild makes the test binary the child of TestDiesWithParent: it arms
// dieWithParent, says so, and waits to be killed.
const envChild = "FAKECLOUD_PLUGIN_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		if !dieWithParent() {
			os.Exit(1)
		}
		fmt.Println("armed")
		select {}
	}
	os.Exit(m.Run())
}

// TestDiesWithParent runs dieWithParent in a child of a shell, as the
// plugin runs in a child of OpenTofu, SIGKILLs the shell alone, and checks
// that the child ends with it rather than live on under init.
func TestDiesWithParent(t *testing.T) {
	dir := t.TempDir()
	testbed.CheckNoLeftovers(t, dir)
	sh := exec.Command("/bin/sh", "-c", `(cd "$1" && exec "$0") & echo "$!"; wait`, os.Args[0], dir)
	sh.Env = append(os.Environ(), envChild+"=1")
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatalf("cannot start the shell: %v", err)
	}
	// The shell prints the child's pid, the child "armed", in either order.
	pid, armed := 0, false
	for sc := bufio.NewScanner(out); (pid == 0 || !armed) && sc.Scan(); {
		if sc.Text() == "armed" {
			armed = true
		} else if pid, err = strconv.Atoi(sc.Text()); err != nil {
			t.Fatalf("unexpected output %q", sc.Text())
		}
	}
	if pid == 0 || !armed {
		t.Fatalf("the child did not start: pid %d, armed %t", pid, armed)
	}
	if err := syscall.Kill(sh.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("cannot kill the shell: %v", err)
	}
	_ = sh.Wait() // the shell has ended, and the kernel has signalled its children
	left, err := testbed.Leftovers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("the child %d must end with its parent; left over: %v", pid, left)
	}
}
