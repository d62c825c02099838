package adapter

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// fakeLister answers every listing with listed, or err. It lists every
// type, or, with listings, what they list.
type fakeLister struct {
	listed      []inventory.Resource
	err         error
	consistency inventory.Consistency
	queries     []inventory.Query
	listings    inventory.Listings
}

func (f *fakeLister) Listing(tf string) inventory.Listing {
	if f.listings != nil {
		return f.listings.Of(tf)
	}
	return inventory.Listing{TerraformResource: tf, Listed: true, Evidence: "the test's fake lists every type"}
}

func (f *fakeLister) List(_ context.Context, q inventory.Query) ([]inventory.Resource, error) {
	f.queries = append(f.queries, q)
	return f.listed, f.err
}

func (f *fakeLister) Consistency() inventory.Consistency { return f.consistency }

// TestWithLister: what a cloud lister lists is adopted only by the
// Terraform ID that observing shows to be it (issue #33, item 2); an
// index's empty answer proves nothing for a young create (item 3); a
// failure is an error, never nothing.
func TestWithLister(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"}
	const arn = "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0ours"
	ours := map[string]string{recovery.TagCrossplaneKind: "vpc.ec2.aws.upbound.io", recovery.TagCrossplaneName: "net", recovery.TagUID: "uid-net"}
	at := func(id string, identifiers ...string) recovery.ExternalResource {
		return recovery.ExternalResource{ID: id, Identifiers: identifiers, Args: recovery.ArgsSame}
	}
	cases := map[string]struct {
		reason   string
		listed   []inventory.Resource
		listErr  error
		observed map[string]recovery.ExternalResource // by candidate ID
		obsErr   error
		scopeErr error
		deleted  bool
		want     []recovery.ExternalResource
		wantErr  string
		observes []string
	}{
		"Verified": {
			reason:   "the ARN's candidates are observed in turn; the one whose observation reports the ARN is the resource, with the listing's tags",
			listed:   []inventory.Resource{{Identifier: arn, Tags: ours}},
			observed: map[string]recovery.ExternalResource{"vpc-0ours": at("vpc-0ours", arn, "vpc-0ours")},
			want:     []recovery.ExternalResource{{ID: "vpc-0ours", Identifiers: []string{arn, "vpc-0ours"}, Args: recovery.ArgsSame, Tags: ours}},
			observes: []string{arn, "vpc/vpc-0ours", "vpc-0ours"},
		},
		"NoneVerifies": {
			reason:   "a resource at a candidate ID that reports another ARN is not the listed one: the lookup fails, nothing adopted or cleared",
			listed:   []inventory.Resource{{Identifier: arn, Tags: ours}},
			observed: map[string]recovery.ExternalResource{"vpc-0ours": at("vpc-0ours", "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0other")},
			wantErr:  "shows it at none of them",
			observes: []string{arn, "vpc/vpc-0ours", "vpc-0ours"},
		},
		"ObserveFails": {
			reason:   "failed observations are named in the error",
			listed:   []inventory.Resource{{Identifier: arn, Tags: ours}},
			obsErr:   errors.New("connection refused"),
			wantErr:  "lookups failed",
			observes: []string{arn, "vpc/vpc-0ours", "vpc-0ours"},
		},
		"NothingListed": {
			reason: "nothing listed: nothing found, nothing observed",
			want:   []recovery.ExternalResource{},
		},
		"ListFails": {
			reason:  "a failed listing is an error, never nothing",
			listErr: errors.New("ThrottledException"),
			wantErr: "ThrottledException",
		},
		"NoScope": {
			reason:   "where to list cannot be told: an error",
			scopeErr: errors.New("provider config default not found"),
			wantErr:  "cannot tell where",
		},
		"Deleted": {
			reason:  "a deleted managed resource cannot be observed: the listed resource is reported by its identifier, marked listed",
			listed:  []inventory.Resource{{Identifier: arn, Tags: ours}},
			deleted: true,
			want:    []recovery.ExternalResource{{ID: arn, Tags: ours, Listed: true}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var observes []string
			observe := func(_ context.Context, _ *unstructured.Unstructured, _ map[string]any, name string) ([]recovery.ExternalResource, error) {
				observes = append(observes, name)
				if tc.obsErr != nil {
					return nil, tc.obsErr
				}
				if r, ok := tc.observed[name]; ok {
					return []recovery.ExternalResource{r}, nil
				}
				return nil, nil
			}
			l := &fakeLister{listed: tc.listed, err: tc.listErr, consistency: inventory.Consistency{ReadAfterWrite: true}}
			scope := func(context.Context, *recovery.Candidate) (inventory.Scope, error) {
				return inventory.Scope{Region: "eu-west-1"}, tc.scopeErr
			}
			d, err := DeriveFinders(nil, []DerivedKind{{GVK: gvk, Observe: observe,
				Facts: strategy.Facts{TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}}}},
				WithLister(l, scope), WithFindersRegisterer(prometheus.NewRegistry()))
			if err != nil {
				t.Fatal(err)
			}
			if s := d.Strategies[gvk.GroupKind()].Strategy; s != strategy.ListByTags {
				t.Fatalf("strategy %s, want list-by-tags with a lister", s)
			}
			c := listerCandidate(gvk, tc.deleted)
			got, err := d.Finders[gvk.GroupKind()].Find(context.Background(), c)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("%s\nFind: error %v, want one containing %q", tc.reason, err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Fatalf("%s\nFind: %v", tc.reason, err)
			}
			if tc.wantErr == "" {
				for i := range tc.want {
					tc.want[i].MatchedByTags = true
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s\nFind (-want +got):\n%s", tc.reason, diff)
				}
			}
			if diff := cmp.Diff(tc.observes, observes); diff != "" {
				t.Errorf("%s\nobserved (-want +got):\n%s", tc.reason, diff)
			}
			if tc.scopeErr == nil && len(l.queries) == 1 && (l.queries[0].Scope.Region != "eu-west-1" || l.queries[0].TerraformResource != "aws_vpc") {
				t.Errorf("%s\nlisted %+v, want aws_vpc in the candidate's scope", tc.reason, l.queries[0])
			}
		})
	}
}

// TestWithListerIndexLag: an index's empty answer proves nothing until
// its lag has passed since the create's latest possible moment.
func TestWithListerIndexLag(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"}
	for _, tc := range []struct {
		consistency inventory.Consistency
		proven      bool
	}{
		{consistency: inventory.Consistency{ReadAfterWrite: true}, proven: true},
		{consistency: inventory.Consistency{Lag: time.Hour}},
	} {
		l := &fakeLister{consistency: tc.consistency}
		d, err := DeriveFinders(nil, []DerivedKind{{GVK: gvk, Observe: func(context.Context, *unstructured.Unstructured, map[string]any, string) ([]recovery.ExternalResource, error) {
			return nil, nil
		}, Facts: strategy.Facts{TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}}}},
			WithLister(l, func(context.Context, *recovery.Candidate) (inventory.Scope, error) { return inventory.Scope{}, nil }),
			WithFindersRegisterer(prometheus.NewRegistry()))
		if err != nil {
			t.Fatal(err)
		}
		// The candidate's create was taken up by recovery a minute ago.
		c := listerCandidate(gvk, false)
		c.DeadBy = time.Now().Add(-time.Minute)
		at := recovery.AbsenceProvenAt(d.Finders[gvk.GroupKind()], c)
		if got := !time.Now().Before(at); got != tc.proven {
			t.Errorf("%+v: an empty listing proves nothing was made = %t (from %s), want %t", tc.consistency, got, at, tc.proven)
		}
	}
}

// listerCandidate returns a candidate of gvk begun a minute ago whose
// create sent its tags; its managed resource deleted when deleted.
func listerCandidate(gvk schema.GroupVersionKind, deleted bool) *recovery.Candidate {
	c := &recovery.Candidate{GVK: gvk, Intent: journal.Intent{ID: journal.NewID(), TaggedSpec: true, CreatedAt: time.Now().Add(-time.Minute),
		Resource:   journal.ResourceRef{Kind: gvk.Kind, Name: "net", UID: "uid-net"},
		LookupKeys: map[string]string{recovery.TagCrossplaneKind: "vpc.ec2.aws.upbound.io", recovery.TagCrossplaneName: "net"}}}
	if !deleted {
		obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": map[string]any{"cidrBlock": "10.0.0.0/16"}}}}
		obj.SetGroupVersionKind(gvk)
		obj.SetName("net")
		obj.SetUID("uid-net")
		c.Object = obj
	}
	return c
}

// TestTagsAfterCreateByDefault: the shipped tags-after-create lists apply
// by Terraform resource type with no call, so an empty listing never
// clears such a create; a provider takes a kind off only with a reason.
func TestTagsAfterCreateByDefault(t *testing.T) {
	zone := schema.GroupVersionKind{Group: "route53.aws.upbound.io", Version: "v1beta1", Kind: "Zone"}
	vpc := schema.GroupVersionKind{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"}
	kind := func(gvk schema.GroupVersionKind, tf string) DerivedKind {
		return DerivedKind{GVK: gvk, Observe: func(context.Context, *unstructured.Unstructured, map[string]any, string) ([]recovery.ExternalResource, error) {
			return nil, nil
		}, Facts: strategy.Facts{TerraformResource: tf, ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}}}
	}
	kinds := []DerivedKind{kind(zone, "aws_route53_zone"), kind(vpc, "aws_vpc")}
	cases := map[string]struct {
		reason  string
		opts    []FindersOption
		want    map[string]report.Outcome
		wantErr string
	}{
		"Default": {
			reason: "aws_route53_zone tags after its create: with no call, its empty listing is reported (the MR paused), never cleared; aws_vpc clears",
			want:   map[string]report.Outcome{"Zone": report.OutcomeConflict, "VPC": report.OutcomeCleared},
		},
		"TakenOffWithReason": {
			reason: "a provider that takes the kind off with a reason gets what it asked for",
			opts:   []FindersOption{WithoutTagsAfterCreate("a fork of aws_route53_zone that tags in CreateHostedZone", zone.GroupKind())},
			want:   map[string]report.Outcome{"Zone": report.OutcomeCleared, "VPC": report.OutcomeCleared},
		},
		"TakenOffWithoutReason": {
			reason:  "without a reason, nothing is derived",
			opts:    []FindersOption{WithoutTagsAfterCreate(" ", zone.GroupKind())},
			wantErr: "without a reason",
		},
		"Added": {
			reason: "a provider adds to the lists",
			opts:   []FindersOption{WithTagsAfterCreate(vpc.GroupKind())},
			want:   map[string]report.Outcome{"Zone": report.OutcomeConflict, "VPC": report.OutcomeConflict},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opts := append([]FindersOption{
				WithLister(&fakeLister{consistency: inventory.Consistency{ReadAfterWrite: true}}, func(context.Context, *recovery.Candidate) (inventory.Scope, error) { return inventory.Scope{}, nil }),
				WithFindersRegisterer(prometheus.NewRegistry())}, tc.opts...)
			d, err := DeriveFinders(nil, kinds, opts...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nDeriveFinders: %v, want an error containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]report.Outcome{}
			for _, gvk := range []schema.GroupVersionKind{zone, vpc} {
				f := d.Finders[gvk.GroupKind()]
				c := listerCandidate(gvk, false)
				found, err := f.Find(context.Background(), c)
				got[gvk.Kind] = recovery.Decide(c, found, err, recovery.Rules{AbsenceUnproven: recovery.AbsenceUnproven(f, c)}).Outcome
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\noutcome of an empty listing (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListerOutsideItsIndex: a list-by-tags kind whose Terraform type the
// lister's index does not list (an S3 object; an Inspector resource group,
// whose tags select instances; a type the listings do not name) is
// report-only: no finder, so an unsettled create is reported, never
// cleared on an empty listing that could not have found it. A global
// service's kind stays listed, in its home region, and says so.
func TestListerOutsideItsIndex(t *testing.T) {
	listings, err := inventory.ShippedListings("aws")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		tf         string
		want       strategy.Strategy
		wantReason string
	}{
		"S3Object":               {tf: "aws_s3_object", want: strategy.ReportOnly, wantReason: "does not list aws_s3_object (S3 objects are not resources of the Tagging API"},
		"InspectorResourceGroup": {tf: "aws_inspector_resource_group", want: strategy.ReportOnly, wantReason: "selector"},
		"SQSQueue":               {tf: "aws_sqs_queue", want: strategy.ReportOnly, wantReason: "queue URL"},
		"Unnamed":                {tf: "aws_devicefarm_project", want: strategy.ReportOnly, wantReason: "does not name the type"},
		"GlobalService":          {tf: "aws_cloudfront_distribution", want: strategy.ListByTags, wantReason: "home region us-east-1"},
		"Regional":               {tf: "aws_vpc", want: strategy.ListByTags, wantReason: "list by the crossplane tags"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			gvk := schema.GroupVersionKind{Group: "x.aws.upbound.io", Version: "v1beta1", Kind: name}
			l := &fakeLister{consistency: inventory.Consistency{ReadAfterWrite: true}, listings: listings}
			scope := func(context.Context, *recovery.Candidate) (inventory.Scope, error) {
				return inventory.Scope{Region: "eu-west-1"}, nil
			}
			observe := func(context.Context, *unstructured.Unstructured, map[string]any, string) ([]recovery.ExternalResource, error) {
				return nil, nil
			}
			d, err := DeriveFinders(nil, []DerivedKind{{GVK: gvk, Observe: observe,
				Facts: strategy.Facts{Provider: "aws", TerraformResource: tc.tf, ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}, TagsAtCreate: strategy.TagsInRequest}}},
				WithLister(l, scope), WithFindersRegisterer(prometheus.NewRegistry()))
			if err != nil {
				t.Fatal(err)
			}
			got := d.Strategies[gvk.GroupKind()]
			if got.Strategy != tc.want || !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("strategy %s (%s), want %s with a reason containing %q", got.Strategy, got.Reason, tc.want, tc.wantReason)
			}
			if _, has := d.Finders[gvk.GroupKind()]; has != (tc.want == strategy.ListByTags) {
				t.Errorf("a finder: %t, want %t", has, tc.want == strategy.ListByTags)
			}
		})
	}
}
