package awscli

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// taggingAPI is a local Resource Groups Tagging API endpoint: it answers
// GetResources with every resource of arns that carries the filters' tags,
// and records the region each request was signed for.
type taggingAPI struct {
	resources map[string]map[string]string // ARN: tags

	mu      sync.Mutex
	regions []string
}

func (f *taggingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Amz-Target") != "ResourceGroupsTaggingAPI_20170126.GetResources" {
		http.Error(w, "not GetResources", http.StatusBadRequest)
		return
	}
	// Credential=AKID/20261129/eu-west-1/tagging/aws4_request
	auth := r.Header.Get("Authorization")
	_, cred, _ := strings.Cut(auth, "Credential=")
	parts := strings.Split(cred, "/")
	f.mu.Lock()
	if len(parts) > 2 {
		f.regions = append(f.regions, parts[2])
	}
	f.mu.Unlock()
	var in struct {
		TagFilters []struct {
			Key    string
			Values []string
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type tag struct{ Key, Value string }
	type mapping struct {
		ResourceARN string
		Tags        []tag
	}
	out := struct{ ResourceTagMappingList []mapping }{ResourceTagMappingList: []mapping{}}
	for arn, tags := range f.resources {
		ok := true
		for _, tf := range in.TagFilters {
			if len(tf.Values) != 1 || tags[tf.Key] != tf.Values[0] {
				ok = false
			}
		}
		if ok {
			m := mapping{ResourceARN: arn}
			for k, v := range tags {
				m.Tags = append(m.Tags, tag{k, v})
			}
			out.ResourceTagMappingList = append(out.ResourceTagMappingList, m)
		}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(out)
}

// TestFinderType: the aws-tags finder of a stock kind lists, through the
// real SDK client against a local endpoint, the resources that carry the
// candidate's crossplane tags, in the region the managed resource names;
// what it finds is listed by its ARN, never an external name.
func TestFinderType(t *testing.T) {
	tags := map[string]string{recovery.TagCrossplaneKind: "vpc.ec2.aws.upbound.io", recovery.TagCrossplaneName: "net", recovery.TagCrossplaneProviderConfig: "default"}
	ours := "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0abc"
	other := map[string]string{recovery.TagCrossplaneKind: "vpc.ec2.aws.upbound.io", recovery.TagCrossplaneName: "other", recovery.TagCrossplaneProviderConfig: "default"}
	srv := &taggingAPI{resources: map[string]map[string]string{ours: tags, "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0def": other}}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	cases := map[string]struct {
		reason      string
		cfgRegion   string
		spec        map[string]any
		loadErr     error
		want        []recovery.ExternalResource
		wantRegions []string
		wantErr     string
	}{
		"SpecRegion": {reason: "the region spec.forProvider names is where the create made its resource", cfgRegion: "us-east-1",
			spec: map[string]any{"region": "eu-west-1"},
			want: []recovery.ExternalResource{{ID: ours, Tags: tags, Listed: true, MatchedByTags: true}}, wantRegions: []string{"eu-west-1"}},
		"ConfigRegion": {reason: "without one, the configuration's region", cfgRegion: "eu-west-1", spec: map[string]any{},
			want: []recovery.ExternalResource{{ID: ours, Tags: tags, Listed: true, MatchedByTags: true}}, wantRegions: []string{"eu-west-1"}},
		"NoRegion": {reason: "no region anywhere: the lookup fails, naming why", spec: map[string]any{},
			wantErr: "no region"},
		"NoConfig": {reason: "a configuration that cannot be loaded fails the kind's finder", loadErr: errors.New("no credentials"),
			wantErr: "cannot load the AWS configuration: no credentials"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv.mu.Lock()
			srv.regions = nil
			srv.mu.Unlock()
			load := func(context.Context) (aws.Config, error) {
				return aws.Config{Region: tc.cfgRegion, BaseEndpoint: aws.String(ts.URL),
					Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}, tc.loadErr
			}
			vpc := schema.GroupKind{Group: "ec2.aws.upbound.io", Kind: "VPC"}
			f, _, err := FinderType(load).Build(vpc, "", cli.FinderEnv{})
			if err == nil {
				c := &recovery.Candidate{
					GVK:    vpc.WithVersion("v1beta1"),
					Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "VPC", Name: "net"}, LookupKeys: tags},
					Object: &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": tc.spec}}},
				}
				var got []recovery.ExternalResource
				got, err = f.Find(context.Background(), c)
				if err == nil {
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("%s\nFind (-want +got):\n%s", tc.reason, diff)
					}
					if diff := cmp.Diff(tc.wantRegions, srv.regions); diff != "" {
						t.Errorf("%s\nregions signed for (-want +got):\n%s", tc.reason, diff)
					}
				}
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\n%v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s\nerror %v, want one containing %q", tc.reason, err, tc.wantErr)
			case tc.wantErr == "no region" && !errors.Is(err, inventory.ErrScope):
				t.Errorf("%s\nerror %v is not inventory.ErrScope", tc.reason, err)
			}
		})
	}
}
