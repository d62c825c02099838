package scan

import (
	"regexp"
	"strings"

	"github.com/intentjournal/intentjournal/recovery"
)

// target names one managed resource on a kubectl command line: its
// resource (plural.group, as kubectl resolves it), namespace and name.
type target struct {
	resource, namespace, name string
}

// annotate returns the kubectl command that sets or removes (a key with a
// trailing "-") the annotations of pairs on t, with --overwrite when it
// sets one.
func (t target) annotate(pairs ...string) string {
	args := []string{"kubectl", "annotate"}
	if t.namespace != "" {
		args = append(args, "-n", shellQuote(t.namespace))
	}
	args = append(args, shellQuote(t.resource), shellQuote(t.name))
	overwrite := false
	for _, p := range pairs {
		if strings.Contains(p, "=") {
			overwrite = true
		}
		args = append(args, shellQuote(p))
	}
	if overwrite {
		args = append(args, "--overwrite")
	}
	return strings.Join(args, " ")
}

// pauseCommand stops t's reconciler: no create, update or delete until
// the annotation goes.
func (t target) pauseCommand() string {
	return t.annotate(recovery.AnnotationPaused + "=true")
}

// unpauseCommand removes the pause.
func (t target) unpauseCommand() string { return t.annotate(recovery.AnnotationPaused + "-") }

// adoptCommand binds the cloud resource id to t, and removes the pending
// mark when one holds t's create.
func (t target) adoptCommand(id string, pending bool) string {
	pairs := []string{recovery.AnnotationExternalName + "=" + id}
	if pending {
		pairs = append(pairs, recovery.AnnotationExternalCreatePending+"-")
	}
	return t.annotate(pairs...)
}

// removePendingCommand lets crossplane-runtime create t again.
func (t target) removePendingCommand() string {
	return t.annotate(recovery.AnnotationExternalCreatePending + "-")
}

// safeWord is what a POSIX shell reads as one word with no quoting.
var safeWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote returns s as one word of a POSIX shell command line: as it
// is when it needs no quoting, else single-quoted. A cloud ID may hold
// anything (an ARN's slashes are safe; a name with a space or a quote is
// not).
func shellQuote(s string) string {
	if safeWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
