// Command importids derives, for the Google kinds upjet configures
// IdentifierFromProvider though their specs make their Terraform IDs (a
// Cloud DNS record set: projects/P/managedZones/Z/rrsets/NAME/TYPE), the
// template of that ID in upjet's syntax: what `intentjournal scan` imports
// a stock provider-upjet-gcp's candidate by, at the key its create took.
//
//	go -C hack run ./importids -google GITDIR -upjet GITDIR > ../testdata/google-import-ids.tsv
//
// GITDIR are git directories (bare clones will do) of
// hashicorp/terraform-provider-google and crossplane-contrib/
// provider-upjet-gcp. For each resource file of the Terraform provider
// (google/services/*/resource_*.go, the type named after the file), it
// takes the first pattern its importer's tpgresource.ParseImportId
// accepts, and keeps it only when:
//
//   - it is the ID the importer then sets (tpgresource.ReplaceVars), so
//     that what an import reads back is the ID the pattern names;
//   - it is a path of literal parts and named groups of the form
//     (?P<name>[^/]+) (or .+) alone;
//   - every group is an argument of the upjet kind's spec (its
//     <Kind>Parameters fields' tf tags, read from provider-upjet-gcp's
//     generated apis/cluster types), the project excepted, which falls
//     back to the provider's (.setup.configuration.project).
//
// A type for which any of these does not hold has no row: its kinds are
// not looked up by key.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

func main() {
	google := flag.String("google", "", "git directory of hashicorp/terraform-provider-google")
	upjet := flag.String("upjet", "", "git directory of crossplane-contrib/provider-upjet-gcp")
	flag.Parse()
	if *google == "" || *upjet == "" {
		fmt.Fprintln(os.Stderr, "importids: -google and -upjet are required")
		os.Exit(2)
	}
	if err := run(*google, *upjet); err != nil {
		fmt.Fprintln(os.Stderr, "importids:", err)
		os.Exit(1)
	}
}

// git runs git on dir and returns its output.
func git(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"--git-dir=" + dir}, args...)...).Output()
	if err != nil {
		return "", fmt.Errorf("git %v: %w", args, err)
	}
	return string(out), nil
}

var (
	resourceFile  = regexp.MustCompile(`^google/services/[a-z0-9]+/resource_([a-z0-9_]+)\.go$`)
	parseImportID = regexp.MustCompile(`ParseImportId\(\[\]string\{\s*"([^"]+)"`)
	replaceVars   = regexp.MustCompile(`ReplaceVars\(d, config, "([^"]+)"\)`)
	namedGroup    = regexp.MustCompile(`\(\?P<([a-z0-9_]+)>(?:\[\^/\]\+|\.\+)\)`)
	replaceVar    = regexp.MustCompile(`\{\{([a-z0-9_]+)\}\}`)
	literalPart   = regexp.MustCompile(`^[A-Za-z0-9_./:@-]*$`)
	tfTag         = regexp.MustCompile(`tf:"([a-z0-9_]+)[,"]`)
	terraformType = regexp.MustCompile(`func \(mg \*([A-Za-z0-9]+)\) GetTerraformResourceType\(\) string \{\s*return "([a-z0-9_]+)"`)
)

func run(googleDir, upjetDir string) error {
	gRev, err := git(googleDir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	uRev, err := git(upjetDir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	params, err := upjetParameters(upjetDir)
	if err != nil {
		return err
	}
	files, err := git(googleDir, "ls-tree", "-r", "--name-only", "HEAD", "google/services")
	if err != nil {
		return err
	}
	rows := map[string]string{}
	var skipped []string
	for _, f := range strings.Fields(files) {
		m := resourceFile.FindStringSubmatch(f)
		if m == nil {
			continue
		}
		typ := "google_" + m[1]
		p, ok := params[typ]
		if !ok {
			continue // not a kind of provider-upjet-gcp
		}
		src, err := git(googleDir, "show", "HEAD:"+f)
		if err != nil {
			return err
		}
		tmpl, why := derive(src, p)
		if why != "" {
			skipped = append(skipped, typ+": "+why)
			continue
		}
		rows[typ] = tmpl
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "# The Terraform ID templates of terraform-provider-google's resources at %s\n", strings.TrimSpace(gRev))
	fmt.Fprintf(w, "# whose IDs their specs make, for the kinds of provider-upjet-gcp at %s:\n", strings.TrimSpace(uRev))
	fmt.Fprintf(w, "# written by hack/importids (see its documentation). %d types; %d of the provider's kinds' types skipped.\n", len(rows), len(skipped))
	fmt.Fprintln(w, "terraform_resource\tid_template")
	types := make([]string, 0, len(rows))
	for t := range rows {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		fmt.Fprintf(w, "%s\t%s\n", t, rows[t])
	}
	sort.Strings(skipped)
	for _, s := range skipped {
		fmt.Fprintln(os.Stderr, "skipped", s)
	}
	return w.Flush()
}

// derive returns the ID template of a resource file's importer, or why
// there is none.
func derive(src string, params map[string]bool) (string, string) {
	m := parseImportID.FindStringSubmatch(src)
	if m == nil {
		return "", "no ParseImportId"
	}
	pattern := strings.TrimSuffix(strings.TrimPrefix(m[1], "^"), "$")
	set := replaceVars.FindStringSubmatch(src[strings.Index(src, m[0]):])
	if set == nil {
		return "", "no ReplaceVars after its ParseImportId"
	}
	// The pattern, with its groups written as ReplaceVars writes them,
	// must be the ID the importer sets.
	asVars := namedGroup.ReplaceAllString(pattern, "{{$1}}")
	if asVars != set[1] {
		return "", fmt.Sprintf("its first import pattern %q is not the ID it sets, %q", pattern, set[1])
	}
	var out strings.Builder
	last := 0
	for _, loc := range replaceVar.FindAllStringSubmatchIndex(asVars, -1) {
		lit := asVars[last:loc[0]]
		if !literalPart.MatchString(lit) {
			return "", fmt.Sprintf("a part of %q is no literal path", pattern)
		}
		out.WriteString(lit)
		name := asVars[loc[2]:loc[3]]
		switch {
		case name == "project" && params["project"]:
			out.WriteString("{{ if .parameters.project }}{{ .parameters.project }}{{ else }}{{ .setup.configuration.project }}{{ end }}")
		case name == "project":
			out.WriteString("{{ .setup.configuration.project }}")
		case params[name]:
			out.WriteString("{{ .parameters." + name + " }}")
		default:
			return "", fmt.Sprintf("%s, in %q, is no argument of the kind", name, pattern)
		}
		last = loc[1]
	}
	if !literalPart.MatchString(asVars[last:]) {
		return "", fmt.Sprintf("a part of %q is no literal path", pattern)
	}
	out.WriteString(asVars[last:])
	return out.String(), ""
}

// upjetParameters returns, by Terraform resource type, the arguments of
// each cluster-scoped kind of provider-upjet-gcp: the tf tags of its
// <Kind>Parameters struct.
func upjetParameters(dir string) (map[string]map[string]bool, error) {
	files, err := git(dir, "ls-tree", "-r", "--name-only", "HEAD", "apis/cluster")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, f := range strings.Fields(files) {
		if !strings.HasSuffix(f, "_terraformed.go") || !strings.Contains(f, "/zz_") {
			continue
		}
		src, err := git(dir, "show", "HEAD:"+f)
		if err != nil {
			return nil, err
		}
		m := terraformType.FindStringSubmatch(src)
		if m == nil {
			continue
		}
		kind, typ := m[1], m[2]
		types, err := git(dir, "show", "HEAD:"+strings.TrimSuffix(f, "_terraformed.go")+"_types.go")
		if err != nil {
			return nil, err
		}
		body, ok := structBody(types, kind+"Parameters")
		if !ok {
			continue
		}
		p := map[string]bool{}
		for _, t := range tfTag.FindAllStringSubmatch(body, -1) {
			p[t[1]] = true
		}
		out[typ] = p
	}
	return out, nil
}

// structBody returns the body of the struct type name in src.
func structBody(src, name string) (string, bool) {
	start := strings.Index(src, "type "+name+" struct {")
	if start < 0 {
		return "", false
	}
	end := strings.Index(src[start:], "\n}\n")
	if end < 0 {
		return "", false
	}
	return src[start : start+end], true
}
