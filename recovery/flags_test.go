package recovery

import "flag"

// update rewrites the golden files under testdata/ instead of comparing
// with them: go test ./recovery -run TestReportGolden -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")
