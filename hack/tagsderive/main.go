// Command tagsderive re-derives, from the Terraform providers' Go sources,
// when each Terraform resource type's create sends its tags or labels to
// the cloud: in the create request ("request"), only in a later call
// ("after"), or in the request with a retry without them and tagging after
// where the AWS partition lacks tag-on-create ("partition-fallback"). It
// says "unknown" when it cannot tell. It reads the provider sources and the
// kinds list (testdata/upjet-provider-kinds.tsv) only; it does not read the
// project's own claims.
//
//	go -C hack run ./tagsderive -aws DIR -google DIR -azurerm DIR \
//	    -kinds ../testdata/upjet-provider-kinds.tsv > testdata/tags-at-create-evidence.tsv
//
// DIR is a provider source root: terraform-provider-aws (holding
// internal/service), terraform-provider-google (holding google/services),
// terraform-provider-azurerm (holding internal/services). A provider whose
// DIR is empty is skipped.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// kind is one row of the kinds file that has a tags or labels field.
type kind struct {
	provider, resource, field string
	idKnown                   string // column 3: K (known before create) or C (cloud-assigned)
}

func readKinds(path string) ([]kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []kind
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if strings.HasPrefix(line, "provider\t") {
				continue
			}
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 5 || cols[4] == "" {
			continue
		}
		// Only the kind's name and tags field: never the file's own
		// tags_at_create column, which this tool checks.
		out = append(out, kind{provider: cols[0], resource: cols[1], field: cols[4], idKnown: cols[2]})
	}
	return out, sc.Err()
}

type config struct {
	aws, google, azurerm          string
	awsVer, googleVer, azurermVer string
	kinds                         string
	header                        []string
	listability                   bool
	list                          listConfig
}

func main() {
	var c config
	flag.StringVar(&c.aws, "aws", "", "terraform-provider-aws source root")
	flag.StringVar(&c.google, "google", "", "terraform-provider-google source root")
	flag.StringVar(&c.azurerm, "azurerm", "", "terraform-provider-azurerm source root")
	flag.StringVar(&c.awsVer, "aws-version", "unrecorded", "version label of the AWS source, put in each evidence")
	flag.StringVar(&c.googleVer, "google-version", "unrecorded", "version label of the Google source")
	flag.StringVar(&c.azurermVer, "azurerm-version", "unrecorded", "version label of the azurerm source")
	flag.StringVar(&c.kinds, "kinds", "testdata/upjet-provider-kinds.tsv", "kinds file")
	flag.BoolVar(&c.listability, "listability", false, "write the listability table (index type, global, ID form, own tags) instead of tags_at_create, for the kinds with a cloud-assigned ID")
	flag.StringVar(&c.list.awsNames, "aws-names", "", "terraform-provider-aws names/ directory, to resolve names.X constants (listability)")
	flag.StringVar(&c.list.awsSDKv1, "aws-sdk-v1", "", "github.com/aws/aws-sdk-go module root, to resolve pkg.ServiceName constants (listability)")
	flag.StringVar(&c.list.azureVend, "azurerm-vendor", "", "vendor/ root holding github.com/hashicorp/go-azure-sdk and go-azure-helpers (listability)")
	flag.StringVar(&c.list.azurermMod, "azurerm-module", "github.com/hashicorp/terraform-provider-azurerm", "Go module path of the azurerm source (listability)")
	var header multiFlag
	flag.Var(&header, "header", "a header comment line to write (repeatable)")
	flag.Parse()
	c.header = header
	runner := run
	if c.listability {
		runner = runListability
	}
	if err := runner(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tagsderive:", err)
		os.Exit(1)
	}
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, "\n") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func run(c config, w io.Writer) error {
	kinds, err := readKinds(c.kinds)
	if err != nil {
		return err
	}
	var classify = map[string]func(string) result{}
	if c.aws != "" {
		t, err := parseTree(c.aws, "internal", true)
		if err != nil {
			return err
		}
		idx := indexAWS(t)
		classify["aws"] = func(n string) result { return classifyAWS(t, idx, n, c.awsVer) }
	}
	if c.google != "" {
		t, err := parseTree(c.google, "google/services", false)
		if err != nil {
			return err
		}
		idx := indexGoogle(t)
		classify["gcp"] = func(n string) result { return classifyGoogle(t, idx, n, c.googleVer) }
	}
	if c.azurerm != "" {
		t, err := parseTree(c.azurerm, "internal/services", false)
		if err != nil {
			return err
		}
		idx := indexAzurerm(t)
		classify["azure"] = func(n string) result { return classifyAzurerm(t, idx, n, c.azurermVer) }
	}
	bw := bufio.NewWriter(w)
	for _, h := range c.header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	fmt.Fprintln(bw, "provider\tterraform_resource\ttags_at_create\tevidence")
	for _, k := range kinds {
		f := classify[k.provider]
		if f == nil {
			continue
		}
		r := f(k.resource)
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\n", k.provider, k.resource, r.Answer, strings.ReplaceAll(r.Evidence, "\t", " "))
	}
	return bw.Flush()
}
