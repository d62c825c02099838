package fakecloud

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"
)

// getResources posts GetResources to c's endpoint as the Tagging API's
// SDK client does (JSON 1.1) and decodes the answer.
func getResources(t *testing.T, c *Client, target string, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.Endpoint()+"/", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", target)
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// arns returns the ResourceARNs of a GetResources answer.
func arns(out map[string]any) []string {
	var got []string
	list, _ := out["ResourceTagMappingList"].([]any)
	for _, m := range list {
		got = append(got, m.(map[string]any)["ResourceARN"].(string))
	}
	return got
}

// TestTagging: the fake cloud's GetResources selects by every tag filter
// and by resource type, pages, and lists only tagged objects.
func TestTagging(t *testing.T) {
	_, c := newTestServer(t, newTestStore(t))
	ctx := context.Background()
	ours := map[string]string{"crossplane-kind": "network.fakecloud.intentjournal.io", "crossplane-name": "net"}
	var nets []string
	for i := range 5 {
		n, err := c.CreateNetwork(ctx, Network{Name: fmt.Sprintf("n%d", i), CIDRBlock: fmt.Sprintf("10.0.%d.0/24", i), Tags: ours})
		if err != nil {
			t.Fatal(err)
		}
		nets = append(nets, ARN(ARNTypeNetwork, n.ID))
	}
	other, err := c.CreateNetwork(ctx, Network{Name: "other", CIDRBlock: "10.9.0.0/24", Tags: map[string]string{"crossplane-kind": "network.fakecloud.intentjournal.io", "crossplane-name": "other"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateNetwork(ctx, Network{Name: "untagged", CIDRBlock: "10.8.0.0/24"}); err != nil {
		t.Fatal(err)
	}
	rs, err := c.CreateRecordSet(ctx, RecordSet{Zone: "z", Name: "www", Type: "A", TTL: 60, RRDatas: []string{"192.0.2.1"}, Tags: ours})
	if err != nil {
		t.Fatal(err)
	}
	filters := []map[string]any{{"Key": "crossplane-kind", "Values": []string{"network.fakecloud.intentjournal.io"}}, {"Key": "crossplane-name", "Values": []string{"net"}}}

	t.Run("Filters", func(t *testing.T) {
		_, out := getResources(t, c, TaggingTarget, map[string]any{"TagFilters": filters, "ResourceTypeFilters": []string{"fakecloud:network"}})
		want := slices.Sorted(slices.Values(nets))
		if diff := cmp.Diff(want, arns(out)); diff != "" {
			t.Errorf("ARNs (-want +got):\n%s", diff)
		}
	})
	t.Run("EveryType", func(t *testing.T) {
		_, out := getResources(t, c, TaggingTarget, map[string]any{"TagFilters": filters})
		if got := len(arns(out)); got != 6 {
			t.Errorf("%d ARNs, want the 5 networks and the record set %s", got, ARN(ARNTypeRecordSet, rs.ID))
		}
	})
	t.Run("KeyOnly", func(t *testing.T) {
		_, out := getResources(t, c, TaggingTarget, map[string]any{"TagFilters": []map[string]any{{"Key": "crossplane-name"}}, "ResourceTypeFilters": []string{"fakecloud:network"}})
		want := slices.Sorted(slices.Values(append(slices.Clone(nets), ARN(ARNTypeNetwork, other.ID))))
		if diff := cmp.Diff(want, arns(out)); diff != "" {
			t.Errorf("a filter with no values takes any value; untagged objects are never listed (-want +got):\n%s", diff)
		}
	})
	t.Run("Pages", func(t *testing.T) {
		var got []string
		token := ""
		for pages := 0; pages < 10; pages++ {
			_, out := getResources(t, c, TaggingTarget, map[string]any{"TagFilters": filters, "ResourceTypeFilters": []string{"fakecloud:network"}, "ResourcesPerPage": 2, "PaginationToken": token})
			got = append(got, arns(out)...)
			if token, _ = out["PaginationToken"].(string); token == "" {
				break
			}
		}
		if diff := cmp.Diff(slices.Sorted(slices.Values(nets)), got); diff != "" {
			t.Errorf("three pages of two (-want +got):\n%s", diff)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		if status, out := getResources(t, c, "ResourceGroupsTaggingAPI_20170126.TagResources", map[string]any{}); status != http.StatusBadRequest || out["__type"] != "UnknownOperationException" {
			t.Errorf("another operation: %d %v, want 400 UnknownOperationException", status, out)
		}
		if status, out := getResources(t, c, TaggingTarget, map[string]any{"PaginationToken": "x"}); status != http.StatusBadRequest || out["__type"] != "PaginationTokenExpiredException" {
			t.Errorf("a bad token: %d %v, want 400 PaginationTokenExpiredException", status, out)
		}
	})
}

// TestTaggingIndexLag: with Faults.IndexLag the Tagging API does not show
// an object created less than that long ago, as an index that lags the
// cloud; the object's own read shows it at once.
func TestTaggingIndexLag(t *testing.T) {
	s, c := newTestServer(t, newTestStore(t))
	ctx := context.Background()
	tags := map[string]string{"crossplane-kind": "network.fakecloud.intentjournal.io", "crossplane-name": "late"}
	n, err := c.CreateNetwork(ctx, Network{Name: "late", Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"TagFilters": []map[string]any{{"Key": "crossplane-name", "Values": []string{"late"}}}}
	if err := s.SetFaults(Faults{IndexLag: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, out := getResources(t, c, TaggingTarget, body); len(arns(out)) != 0 {
		t.Errorf("an index an hour behind lists %v, created a moment ago", arns(out))
	}
	if _, err := c.GetNetwork(ctx, n.ID); err != nil {
		t.Errorf("the object's own read: %v", err)
	}
	if err := s.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if _, out := getResources(t, c, TaggingTarget, body); !slices.Equal(arns(out), []string{ARN(ARNTypeNetwork, n.ID)}) {
		t.Errorf("an index with no lag lists %v, want the network", arns(out))
	}
}

// TestCommitDelay: a create held by Faults.CommitDelay is carried out only
// after the delay, and not at all when its client gives up first.
func TestCommitDelay(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), "state.json"), WithLogger(zaptest.NewLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	s, c, hs := newTestHTTPServer(t, store)
	if err := s.SetFaults(Faults{CommitDelay: Latencies{Create: 300 * time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := c.CreateNetwork(context.Background(), Network{Name: "held"})
	if err != nil {
		t.Fatal(err)
	}
	if !n.CreatedAt.After(start.Add(250 * time.Millisecond)) {
		t.Errorf("created at %s, %s after the request: the commit was not held", n.CreatedAt, n.CreatedAt.Sub(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.CreateNetwork(ctx, Network{Name: "abandoned"}); err == nil {
		t.Fatal("a create whose client gave up during the commit delay succeeded")
	}
	// Close returns once every request's handler has: the abandoned
	// create's, whether it gave up or carried the create out.
	hs.Close()
	if nets := store.ListNetworks(NetworkFilter{Name: "abandoned"}); len(nets) != 0 {
		t.Errorf("the abandoned create left %v: a client that gave up before the commit must leave nothing", nets)
	}
}
