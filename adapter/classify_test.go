package adapter

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
)

func TestDefaultClassifier(t *testing.T) {
	c, err := NewDefaultClassifier(`\bDuplicateZone\b`)
	if err != nil {
		t.Fatalf("NewDefaultClassifier(): %v", err)
	}
	cases := map[string]struct {
		reason string
		err    error
		want   journal.ErrorClass
	}{
		"Nil":           {reason: "No error has no class.", err: nil, want: ""},
		"FakeCloud":     {reason: "The fake cloud's Terraform diagnostic.", err: errors.New(`async create failed: failed to create the resource: [{0 Error creating RecordSet: recordset "www" already exists in zone "example-com"  []}]`), want: journal.ErrorClassConflict},
		"GCP":           {reason: "Google APIs say alreadyExists with 409.", err: errors.New(`googleapi: Error 409: The resource 'projects/p/managedZones/z' already exists, alreadyExists`), want: journal.ErrorClassConflict},
		"AWSIAM":        {reason: "IAM's EntityAlreadyExists.", err: errors.New(`creating IAM Role (r): EntityAlreadyExists: Role with name r already exists.`), want: journal.ErrorClassConflict},
		"AWSLogs":       {reason: "ResourceAlreadyExistsException.", err: errors.New(`creating CloudWatch Logs Log Group (g): ResourceAlreadyExistsException: The specified log group already exists`), want: journal.ErrorClassConflict},
		"AzureConflict": {reason: "Azure's Conflict status.", err: errors.New(`unexpected status 409 (409 Conflict) with error: StorageAccountAlreadyTaken`), want: journal.ErrorClassConflict},
		"S3":            {reason: "S3 bucket names are global.", err: errors.New(`creating S3 Bucket (b): BucketAlreadyOwnedByYou: Your previous request to create the named bucket succeeded`), want: journal.ErrorClassConflict},
		"Extra":         {reason: "Extra patterns are conflicts too.", err: errors.New(`DuplicateZone: zone z`), want: journal.ErrorClassConflict},
		"NotA409":       {reason: "409 inside a longer number is not a status.", err: errors.New(`quota 14099 reached: QuotaExceeded`), want: journal.ErrorClassRejected},
		"Timeout":       {reason: "A timeout may have created the resource.", err: errors.New(`Post "http://127.0.0.1:1/v1/networks": context deadline exceeded`), want: journal.ErrorClassAmbiguous},
		"Reset":         {reason: "A reset after sending may have created it.", err: errors.New(`read tcp: connection reset by peer`), want: journal.ErrorClassAmbiguous},
		"Unavailable":   {reason: "A 503 is ambiguous.", err: errors.New(`status 503: ServiceUnavailable`), want: journal.ErrorClassAmbiguous},
		"Validation":    {reason: "A 400 made nothing.", err: errors.New(`InvalidParameterValue: cidr 10.0.0.0/33 is not valid (400)`), want: journal.ErrorClassRejected},
		"Denied":        {reason: "Permission errors made nothing.", err: errors.New(`AccessDeniedException: not authorized`), want: journal.ErrorClassRejected},
		"Unknown":       {reason: "Anything else is unknown, looked up like ambiguous.", err: errors.New(`the provider crashed`), want: journal.ErrorClassUnknown},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, c.Classify(tc.err)); diff != "" {
				t.Errorf("%s\nClassify(%v): -want, +got:\n%s", tc.reason, tc.err, diff)
			}
		})
	}
}

func TestNewDefaultClassifierBadPattern(t *testing.T) {
	_, err := NewDefaultClassifier(`(`)
	var pe *PatternError
	if !errors.As(err, &pe) {
		t.Fatalf("NewDefaultClassifier(`(`): want a *PatternError, got %v", err)
	}
	if diff := cmp.Diff("(", pe.Pattern); diff != "" {
		t.Errorf("PatternError names the bad pattern; -want, +got:\n%s", diff)
	}
}

func TestClassifierFn(t *testing.T) {
	c := ClassifierFn(func(error) journal.ErrorClass { return journal.ErrorClassRejected })
	if diff := cmp.Diff(journal.ErrorClassRejected, c.Classify(errors.New("x"))); diff != "" {
		t.Errorf("ClassifierFn should call its function; -want, +got:\n%s", diff)
	}
}
