//go:build !failpoints

package failpoint

// Hit marks the point name. Without -tags failpoints it does nothing and
// costs nothing.
func Hit(string) {}
