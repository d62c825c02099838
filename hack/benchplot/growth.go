package main

import (
	"fmt"
	"strings"
)

// growthLines say, for each pair of consecutive sizes, how the pass's wall
// time and the provider's peak RSS grew against N: the ratio of the two
// values divided by the ratio of the two sizes, so that 1.00 of linear is
// linear growth, less is sublinear and more superlinear.
func growthLines(pts []passPoint) []string {
	return []string{
		growth("pass wall", "time", pts, func(p passPoint) float64 { return p.Wall }),
		growth("peak RSS", "RSS", pts, func(p passPoint) float64 { return p.PeakRSSMiB }),
	}
}

// growth states what's growth over pts, in v, which passPoints keeps
// positive.
func growth(what, in string, pts []passPoint, v func(passPoint) float64) string {
	switch len(pts) {
	case 0:
		return what + ": no sizes"
	case 1:
		return fmt.Sprintf("%s: one size (N=%d), no growth to state", what, pts[0].N)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: N ", what)
	for i := 1; i < len(pts); i++ {
		a, z := pts[i-1], pts[i]
		byN, byV := float64(z.N)/float64(a.N), v(z)/v(a)
		if i > 1 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d->%d x%.1f in N, x%.1f in %s (%.2f of linear)", a.N, z.N, byN, byV, in, byV/byN)
	}
	return b.String()
}
