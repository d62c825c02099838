package adapter

import (
	"regexp"
	"strings"

	"github.com/intentjournal/intentjournal/journal"
)

// Classifier sorts a failed create into an error class. Only the text of
// a Terraform diagnostic reaches an upjet provider, so classifiers match
// text.
type Classifier interface {
	Classify(err error) journal.ErrorClass
}

// ClassifierFn adapts a function to a Classifier.
type ClassifierFn func(err error) journal.ErrorClass

// Classify calls fn.
func (fn ClassifierFn) Classify(err error) journal.ErrorClass { return fn(err) }

var _ Classifier = ClassifierFn(nil)

// TextClassifier classifies errors by patterns in their text, tried in the
// order Conflict, Ambiguous, Rejected. An error matching none is
// journal.ErrorClassUnknown, which recovery looks up like an ambiguous one.
type TextClassifier struct {
	// Conflict matches "already exists" failures: something with the
	// resource's natural key exists. They go to the resolver, never to a
	// retry.
	Conflict []*regexp.Regexp
	// Ambiguous matches failures after which the create may or may not
	// have happened (timeouts, resets).
	Ambiguous []*regexp.Regexp
	// Rejected matches failures after which the cloud made nothing
	// (validation, permission, quota). Be conservative: a rejected intent
	// of this process is settled without a lookup and the create runs
	// again.
	Rejected []*regexp.Regexp
}

// Classify returns the class of err; nil is never classified as a failure
// and returns "".
func (c TextClassifier) Classify(err error) journal.ErrorClass {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for _, set := range []struct {
		res   []*regexp.Regexp
		class journal.ErrorClass
	}{
		{c.Conflict, journal.ErrorClassConflict},
		{c.Ambiguous, journal.ErrorClassAmbiguous},
		{c.Rejected, journal.ErrorClassRejected},
	} {
		for _, re := range set.res {
			if re.MatchString(msg) {
				return set.class
			}
		}
	}
	return journal.ErrorClassUnknown
}

// DefaultConflictPatterns match the "already exists" texts of the fake
// cloud and of the common AWS, GCP and Azure Terraform providers.
var DefaultConflictPatterns = []string{
	`(?i)already exists`,
	`\b(AlreadyExists|EntityAlreadyExists|ResourceAlreadyExists|ResourceAlreadyExistsException|ResourceExistsException|BucketAlreadyExists|BucketAlreadyOwnedByYou|DBInstanceAlreadyExists|InvalidGroup\.Duplicate|alreadyExists|ConflictingDomainExists)\b`,
	`\bConflict\b`,
	`\b409\b`,
}

// DefaultAmbiguousPatterns match failures after which the create may have
// happened.
var DefaultAmbiguousPatterns = []string{
	`(?i)context deadline exceeded`,
	`(?i)timeout|timed out`,
	`(?i)connection reset`,
	`\bEOF\b`,
	`\b(502|503|504)\b`,
	`(?i)\b(ServiceUnavailable|InternalError|InternalServerError|Throttling|RequestLimitExceeded)\b`,
}

// DefaultRejectedPatterns match failures after which the cloud made
// nothing.
var DefaultRejectedPatterns = []string{
	`\b(400|401|403|422)\b`,
	`\b(InvalidParameter\w*|ValidationError|ValidationException|AccessDenied\w*|PermissionDenied|UnauthorizedOperation|Forbidden|QuotaExceeded|LimitExceeded|InvalidArgument|BadRequest)\b`,
}

// NewDefaultClassifier returns a TextClassifier with the default patterns,
// plus extra conflict patterns (regular expressions) for a provider's own
// "already exists" texts.
func NewDefaultClassifier(extraConflict ...string) (TextClassifier, error) {
	var c TextClassifier
	var err error
	if c.Conflict, err = compileAll(append(append([]string(nil), DefaultConflictPatterns...), extraConflict...)); err != nil {
		return c, err
	}
	if c.Ambiguous, err = compileAll(DefaultAmbiguousPatterns); err != nil {
		return c, err
	}
	c.Rejected, err = compileAll(DefaultRejectedPatterns)
	return c, err
}

func compileAll(pats []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(pats))
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &PatternError{Pattern: p, Err: err}
		}
		out = append(out, re)
	}
	return out, nil
}

// PatternError reports a classifier pattern that does not compile.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string {
	return "cannot compile classifier pattern " + strings.TrimSpace(e.Pattern) + ": " + e.Err.Error()
}

// Unwrap returns the regexp error.
func (e *PatternError) Unwrap() error { return e.Err }
