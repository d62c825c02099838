package gcp

import (
	"context"
	"net"
	"sync"
	"testing"

	asset "cloud.google.com/go/asset/apiv1"
	"cloud.google.com/go/asset/apiv1/assetpb"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/intentjournal/intentjournal/inventory"
)

// grpcAsset is Cloud Asset Inventory's gRPC AssetService, serving
// SearchAllResources on 127.0.0.1 from pages, or failing with err.
type grpcAsset struct {
	assetpb.UnimplementedAssetServiceServer
	pages [][]*assetpb.ResourceSearchResult
	err   error

	mu   sync.Mutex
	reqs []*assetpb.SearchAllResourcesRequest
}

func (g *grpcAsset) SearchAllResources(_ context.Context, req *assetpb.SearchAllResourcesRequest) (*assetpb.SearchAllResourcesResponse, error) {
	g.mu.Lock()
	g.reqs = append(g.reqs, req)
	g.mu.Unlock()
	if g.err != nil {
		return nil, g.err
	}
	page := 0
	for i := range g.pages {
		if req.GetPageToken() == pageToken(i) {
			page = i
		}
	}
	out := &assetpb.SearchAllResourcesResponse{Results: g.pages[page]}
	if page+1 < len(g.pages) {
		out.NextPageToken = pageToken(page + 1)
	}
	return out, nil
}

func pageToken(i int) string {
	if i == 0 {
		return ""
	}
	return "page-" + string(rune('0'+i))
}

// newGRPCFake serves g on a loopback port and returns the SDK's gRPC
// client (asset.NewClient) pointed at it, with no credentials.
func newGRPCFake(t *testing.T, g *grpcAsset) *asset.Client {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	assetpb.RegisterAssetServiceServer(s, g)
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	c, err := asset.NewClient(context.Background(),
		option.WithEndpoint(lis.Addr().String()),
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
	)
	if err != nil {
		t.Fatalf("asset.NewClient: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestListOverGRPC: the package documents asset.NewClient (gRPC) beside
// asset.NewRESTClient; the Lister reads the same results through it,
// across pages, with the same request, and a refused search is an error,
// never an empty listing.
func TestListOverGRPC(t *testing.T) {
	stranger := &assetpb.ResourceSearchResult{Name: "//dns.googleapis.com/projects/my-project/managedZones/other", AssetType: ours.AssetType,
		Labels: map[string]string{"crossplane-kind": "recordset_dns_gcp_upbound_io", "crossplane-name": "other"}}
	mine := &assetpb.ResourceSearchResult{Name: ours.Name, AssetType: ours.AssetType, Labels: ourLabels,
		CreateTime: timestamppb.New(oursListed.CreatedAt)}
	g := &grpcAsset{pages: [][]*assetpb.ResourceSearchResult{{stranger}, {}, {mine}}}
	got, err := New(newGRPCFake(t, g)).List(context.Background(), query("google_dns_managed_zone"))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff([]inventory.Resource{oursListed}, got); diff != "" {
		t.Errorf("List over gRPC (-want +got):\n%s", diff)
	}
	want := &assetpb.SearchAllResourcesRequest{Scope: "projects/my-project", Query: searchQuery(wantTags),
		AssetTypes: []string{"dns.googleapis.com/ManagedZone"}, PageSize: pageSize}
	if len(g.reqs) != 3 {
		t.Fatalf("%d searches, want 3 (one per page)", len(g.reqs))
	}
	if diff := cmp.Diff(want, g.reqs[0], cmpopts.IgnoreUnexported(assetpb.SearchAllResourcesRequest{})); diff != "" {
		t.Errorf("the first search (-want +got):\n%s", diff)
	}
	if g.reqs[2].GetPageToken() != pageToken(2) {
		t.Errorf("the third search asked for page %q, want %q", g.reqs[2].GetPageToken(), pageToken(2))
	}

	denied := &grpcAsset{err: status.Error(codes.PermissionDenied, "the caller does not have permission")}
	if got, err := New(newGRPCFake(t, denied), fast).List(context.Background(), query("google_dns_managed_zone")); err == nil || got != nil {
		t.Errorf("List with the search denied: %v, %v; want an error and no listing", got, err)
	}
}
