package tabular

import (
	"testing"
	"time"
)

// TestAge checks the age column's format.
func TestAge(t *testing.T) {
	cases := map[time.Duration]string{
		-time.Second:                   "0s",
		0:                              "0s",
		42 * time.Second:               "42s",
		5 * time.Minute:                "5m",
		5*time.Minute + 10*time.Second: "5m10s",
		90 * time.Minute:               "1h30m",
		3 * time.Hour:                  "3h",
		76 * time.Hour:                 "3d4h",
		48 * time.Hour:                 "2d",
	}
	for d, want := range cases {
		if got := Age(d); got != want {
			t.Errorf("Age(%s) = %q, want %q", d, got, want)
		}
	}
}
