package strategy

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// evidenceFile is hack/tagsderive's output: tags_at_create re-derived
// from the Terraform providers' sources, which never reads the Go lists.
var evidenceFile = filepath.Join("..", "..", "testdata", "tags-at-create-evidence.tsv")

// TestTagsAtCreateListsAgree holds the kinds file's tags_at_create and the
// shipped Go lists equal in both directions: every kind the file says
// tags after its create (or falls back to it outside the commercial
// partition) is on the matching list, and every listed type the file
// names says so. A list that missed a kind would let an empty listing
// clear its create; a file that missed one would count it as adopting.
func TestTagsAtCreateListsAgree(t *testing.T) {
	kinds := readRealKinds(t)
	lists := map[string][]string{
		"aws " + TagsAfter:             AWSTagsAfterCreate,
		"aws " + TagsPartitionFallback: AWSTagsAfterCreateOutsideCommercial,
		"gcp " + TagsAfter:             GCPTagsAfterCreate,
	}
	inFile := map[string]Facts{}
	for _, k := range kinds {
		inFile[k.TerraformResource] = k
		if k.TagsAtCreate == TagsAfter || k.TagsAtCreate == TagsPartitionFallback {
			if !slices.Contains(lists[k.Provider+" "+k.TagsAtCreate], k.TerraformResource) {
				t.Errorf("%s %s: the kinds file says %s (%s), the Go list for it does not name it", k.Provider, k.TerraformResource, k.TagsAtCreate, k.TagsAtCreateEvidence)
			}
		}
	}
	notInFile := 0
	for which, list := range lists {
		provider, want, _ := strings.Cut(which, " ")
		for _, tf := range list {
			k, ok := inFile[tf]
			switch {
			case !ok || len(k.TagFields) == 0:
				notInFile++ // a Terraform type the upjet providers do not ship with a tags field
			case k.Provider != provider || k.TagsAtCreate != want:
				t.Errorf("%s is on the %s %s list, the kinds file says %s %s (%s)", tf, provider, want, k.Provider, k.TagsAtCreate, k.TagsAtCreateEvidence)
			}
		}
	}
	t.Logf("%d listed types are not kinds with a tags field in the kinds file", notInFile)
}

// toolDisagrees are the kinds whose tags_at_create the kinds file keeps
// against hack/tagsderive's answer, each for a reason read by hand; the
// test fails if one agrees again, so the list only shrinks.
var toolDisagrees = map[string]string{
	"aws_instance":         "the createTags after RunInstances tags the instance's EBS volumes; the instance's tags are in RunInstances' TagSpecifications",
	"aws_apigatewayv2_api": "the updateTags after CreateApi re-tags an API already tagged in CreateApi, after a re-import of its body",
}

// TestTagsAtCreateEvidence: the kinds file's tags_at_create is
// hack/tagsderive's answer from the providers' sources wherever the tool
// could tell, but for toolDisagrees; where it could not (unknown), the
// file's evidence says the value is kept and assumed. The number of
// assumed kinds is pinned, so that it is stated (docs/recovery.md) and
// only shrinks.
func TestTagsAtCreateEvidence(t *testing.T) {
	tool := readEvidence(t)
	assumed := map[string]int{}
	for _, k := range readRealKinds(t) {
		if len(k.TagFields) == 0 {
			continue
		}
		got, ok := tool[k.Provider+" "+k.TerraformResource]
		if !ok {
			t.Errorf("%s %s: not in %s: run hack/tagsderive again", k.Provider, k.TerraformResource, evidenceFile)
			continue
		}
		_, kept := toolDisagrees[k.TerraformResource]
		switch {
		case got == "unknown":
			assumed[k.Provider]++
			if !strings.HasPrefix(k.TagsAtCreateEvidence, "hack/tagsderive: unknown") || !strings.Contains(k.TagsAtCreateEvidence, "kept") {
				t.Errorf("%s: the tool could not tell, and the evidence %q does not say the value is kept", k.TerraformResource, k.TagsAtCreateEvidence)
			}
		case kept && got == k.TagsAtCreate:
			t.Errorf("%s: the tool now agrees (%s): take it off toolDisagrees", k.TerraformResource, got)
		case kept:
		case got != k.TagsAtCreate:
			t.Errorf("%s %s: the kinds file says %s, hack/tagsderive %s", k.Provider, k.TerraformResource, k.TagsAtCreate, got)
		}
	}
	if diff := cmp.Diff(map[string]int{"aws": 61, "azure": 9, "gcp": 4}, assumed); diff != "" {
		t.Errorf("kinds whose tags_at_create the tool could not tell (-want +got):\n%s", diff)
	}
}

func readRealKinds(t *testing.T) []Facts {
	t.Helper()
	f, err := os.Open(realKinds)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds, err := DecodeKinds(f)
	if err != nil {
		t.Fatal(err)
	}
	return kinds
}

// readEvidence returns hack/tagsderive's answers by "provider type".
func readEvidence(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(evidenceFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "provider\t") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 4 {
			t.Fatalf("%s: %q has %d columns, want 4", evidenceFile, line, len(c))
		}
		out[c[0]+" "+c[1]] = c[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
