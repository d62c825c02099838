package strategy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrBadKinds reports a kinds file that DecodeKinds refuses.
var ErrBadKinds = errors.New("strategy: bad kinds file")

// KindsHeader is the header line of a kinds file, its columns tab-separated.
const KindsHeader = "provider\tterraform_resource\tid_known_before_create\texternal_name_config\ttags_or_labels_field\tdetail\ttags_at_create\ttags_at_create_evidence"

// kindsHeaderV2 is the header of the seven-column kinds file, without the
// evidence of tags_at_create: DecodeKinds reads it, each kind's
// TagsAtCreateEvidence empty.
const kindsHeaderV2 = "provider\tterraform_resource\tid_known_before_create\texternal_name_config\ttags_or_labels_field\tdetail\ttags_at_create"

// kindsHeaderV1 is the header of the six-column kinds file from before
// the tags_at_create column, which DecodeKinds refuses with a clear error.
const kindsHeaderV1 = "provider\tterraform_resource\tid_known_before_create\texternal_name_config\ttags_or_labels_field\tdetail"

// The values of the id_known_before_create column.
const (
	idKnown    = "K"
	idAssigned = "C"
)

var (
	providerName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	fieldName    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
)

// DecodeKinds reads a kinds file (see the package documentation) and
// returns its kinds in file order. It is strict, since a wrong column
// would silently change the measurement: every error names the line and
// wraps ErrBadKinds. It never panics.
func DecodeKinds(r io.Reader) ([]Facts, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%w: line 1: %w", ErrBadKinds, err)
		}
		return nil, fmt.Errorf("%w: empty; want the header line %q", ErrBadKinds, KindsHeader)
	}
	columns := 8
	switch h := sc.Text(); h {
	case KindsHeader:
	case kindsHeaderV2:
		columns = 7
	case kindsHeaderV1:
		return nil, fmt.Errorf("%w: line 1: a six-column kinds file, without tags_at_create: add the column (request, after or partition-fallback for a kind with a tags field, empty for one without) and the header %q", ErrBadKinds, KindsHeader)
	default:
		return nil, fmt.Errorf("%w: line 1: header %q, want %q", ErrBadKinds, h, KindsHeader)
	}
	var out []Facts
	firstLine := map[[2]string]int{}
	n := 1
	for sc.Scan() {
		n++
		f, err := decodeKind(sc.Text(), columns)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrBadKinds, n, err)
		}
		key := [2]string{f.Provider, f.TerraformResource}
		if first, dup := firstLine[key]; dup {
			return nil, fmt.Errorf("%w: line %d: %s %s is already on line %d", ErrBadKinds, n, f.Provider, f.TerraformResource, first)
		}
		firstLine[key] = n
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: after line %d: %w", ErrBadKinds, n, err)
	}
	return out, nil
}

// decodeKind decodes one line after the header, of columns columns (8,
// or 7 without tags_at_create_evidence).
func decodeKind(line string, columns int) (Facts, error) {
	cols := strings.Split(line, "\t")
	if len(cols) != columns {
		return Facts{}, fmt.Errorf("%d tab-separated columns, want %d", len(cols), columns)
	}
	for i, c := range cols {
		if !utf8.ValidString(c) || strings.ContainsFunc(c, unicode.IsControl) {
			return Facts{}, fmt.Errorf("column %d holds invalid UTF-8 or a control character", i+1)
		}
	}
	f := Facts{Provider: cols[0], TerraformResource: cols[1], ExternalNameConfig: cols[3], Detail: cols[5], TagsAtCreate: cols[6]}
	if !providerName.MatchString(f.Provider) {
		return Facts{}, fmt.Errorf("provider %q: want a lower-case name such as aws", f.Provider)
	}
	if !resourceType.MatchString(f.TerraformResource) {
		return Facts{}, fmt.Errorf("terraform_resource %q is not a Terraform resource type", f.TerraformResource)
	}
	switch cols[2] {
	case idKnown:
		f.IDKnownBeforeCreate = true
	case idAssigned:
	default:
		return Facts{}, fmt.Errorf("id_known_before_create %q, want %s or %s", cols[2], idKnown, idAssigned)
	}
	if f.ExternalNameConfig == "" || strings.TrimSpace(f.ExternalNameConfig) != f.ExternalNameConfig {
		return Facts{}, fmt.Errorf("external_name_config %q: want a name such as IdentifierFromProvider, with no leading or trailing blanks", f.ExternalNameConfig)
	}
	if cols[4] != "" {
		for _, tf := range strings.Split(cols[4], ",") {
			if !fieldName.MatchString(tf) {
				return Facts{}, fmt.Errorf("tags_or_labels_field %q: want field names separated by commas, such as tags or labels,userLabels", cols[4])
			}
			for _, seen := range f.TagFields {
				if seen == tf {
					return Facts{}, fmt.Errorf("tags_or_labels_field %q names %s twice", cols[4], tf)
				}
			}
			f.TagFields = append(f.TagFields, tf)
		}
	}
	switch {
	case len(f.TagFields) == 0 && f.TagsAtCreate != "":
		return Facts{}, fmt.Errorf("tags_at_create %q for a kind with no tags or labels field: want it empty", f.TagsAtCreate)
	case len(f.TagFields) > 0 && !slices.Contains([]string{TagsInRequest, TagsAfter, TagsPartitionFallback}, f.TagsAtCreate):
		return Facts{}, fmt.Errorf("tags_at_create %q, want %s, %s or %s", f.TagsAtCreate, TagsInRequest, TagsAfter, TagsPartitionFallback)
	}
	if columns == 8 {
		f.TagsAtCreateEvidence = cols[7]
		switch {
		case len(f.TagFields) == 0 && f.TagsAtCreateEvidence != "":
			return Facts{}, fmt.Errorf("tags_at_create_evidence %q for a kind with no tags or labels field: want it empty", f.TagsAtCreateEvidence)
		case len(f.TagFields) > 0 && strings.TrimSpace(f.TagsAtCreateEvidence) == "":
			return Facts{}, errors.New("tags_at_create_evidence is empty: say where tags_at_create was read (file:line of the Terraform provider's source) or why it is kept")
		}
	}
	return f, nil
}

// EncodeKinds writes kinds in the format DecodeKinds reads, header first.
// It writes what DecodeKinds would refuse as it is; decode the result to
// check it.
func EncodeKinds(w io.Writer, kinds []Facts) error {
	// The seven-column form where no kind has evidence, so that what a
	// seven-column file decodes to encodes as it was.
	columns := 7
	header := kindsHeaderV2
	for _, f := range kinds {
		if f.TagsAtCreateEvidence != "" {
			columns, header = 8, KindsHeader
			break
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, header)
	for _, f := range kinds {
		id := idAssigned
		if f.IDKnownBeforeCreate {
			id = idKnown
		}
		cols := []string{f.Provider, f.TerraformResource, id, f.ExternalNameConfig,
			strings.Join(f.TagFields, ","), f.Detail, f.TagsAtCreate, f.TagsAtCreateEvidence}
		fmt.Fprintln(bw, strings.Join(cols[:columns], "\t"))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cannot write the kinds: %w", err)
	}
	return nil
}
