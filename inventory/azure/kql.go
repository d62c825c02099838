package azure

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// quote returns s as a KQL string literal: single-quoted, with the
// backslash, the single quote, newline, carriage return and tab escaped
// by a backslash (\\, \', \n, \r, \t), as the string data type's
// documentation gives them
// (https://learn.microsoft.com/azure/kusto/query/scalar-data-types/string).
// Every other byte stands for itself: a double quote needs no escape
// between single quotes. Whatever s holds, the literal ends at its last
// quote, so a tag value cannot close it and add to the query.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// taggedColumn is the column query adds: the resource's tags with their
// keys lowered, so that a key matches whatever its case.
const taggedColumn = "lowertags"

// query returns the Resource Graph query (KQL) that lists the resources of
// the Terraform type tfResource carrying every tag of tags:
//
//	Resources
//	| where type =~ 'microsoft.network/virtualnetworks'
//	| extend lowertags = parse_json(tolower(tostring(tags)))
//	| where tostring(lowertags['k1']) =~ 'v1' and tostring(lowertags['k2']) =~ 'v2'
//	| project id, type, tags, systemData
//
// on one line, the tags in the order of their lowered keys. The table and type clause are the listing's (tableAndType);
// a listing with no ARM type has no type clause. Azure compares tag keys without regard
// to case and keeps the case a key was first written with, while a KQL
// property lookup is case-sensitive: the query looks keys up lowered, in
// the tags lowered as JSON text. Values are compared with =~ (any case).
// The query is loose on purpose: List compares every tag again, keys in
// any case and values exactly, so that what the query lets through cannot
// be taken for ours.
func query(table, armType string, tags map[string]string) string {
	var b strings.Builder
	b.WriteString(table)
	if armType != "" {
		b.WriteString(" | where type =~ ")
		b.WriteString(quote(armType))
	}
	if len(tags) > 0 {
		b.WriteString(" | extend " + taggedColumn + " = parse_json(tolower(tostring(tags))) | where ")
		keys := slices.SortedFunc(maps.Keys(tags), func(a, b string) int {
			return cmp.Or(strings.Compare(strings.ToLower(a), strings.ToLower(b)), strings.Compare(a, b))
		})
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" and ")
			}
			b.WriteString("tostring(" + taggedColumn + "[")
			b.WriteString(quote(strings.ToLower(k)))
			b.WriteString("]) =~ ")
			b.WriteString(quote(tags[k]))
		}
	}
	b.WriteString(" | project id, type, tags, systemData")
	return b.String()
}

// carries reports whether have holds every tag of want: a key in any case
// (Azure's tag keys are case-insensitive) with exactly want's value.
func carries(have, want map[string]string) bool {
	for k, v := range want {
		found := false
		for hk, hv := range have {
			if strings.EqualFold(hk, k) && hv == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
