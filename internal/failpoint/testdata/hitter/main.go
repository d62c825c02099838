// Command hitter hits a failpoint a given number of times, printing the
// count after each hit, for the failpoint package's process tests.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/intentjournal/intentjournal/internal/failpoint"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hitter POINT TIMES")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 1; i <= n; i++ {
		failpoint.Hit(os.Args[1])
		fmt.Println(i)
	}
}
