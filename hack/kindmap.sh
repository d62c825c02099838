#!/usr/bin/env bash
# kindmap.sh PROVIDER GITDIR > inventory/kinds/PROVIDER.tsv
#
# Writes every managed kind that an upjet provider's repository generates,
# both scopes, with its Terraform resource type, whether its ID is known
# before the create, and for such a kind its ID template and the argument
# its external name sets (testdata/upjet-provider-kinds.tsv's columns,
# joined by Terraform resource type): what `intentjournal scan` reads to
# look a stock provider's kinds up with no per-kind flag. The template is
# the configuration's for TemplatedStringAsIdentifier, {{ .external_name }}
# for NameAsIdentifier and ParameterAsIdentifier; the argument is "name"
# or ParameterAsIdentifier's, empty for a template (the one required
# argument the managed resource's spec lacks) and other kinds. A GCP kind
# whose ID the cloud assigns by upjet's configuration but its spec makes
# (a Cloud DNS record set) takes its template from
# testdata/google-import-ids.tsv (hack/importids). tags_at_create
# is the kinds file's too: whether the create request carries the tags
# (request), or a later call (after), or the request except in a partition
# that does not take them (partition-fallback); empty for a kind with no tags
# field. PROVIDER is aws, gcp or azure;
# GITDIR is a git directory of crossplane-contrib/provider-upjet-PROVIDER
# (a bare clone will do). The kinds come from the generated
# apis/{cluster,namespaced}/<group>/<version>/zz_*_terraformed.go
# (GetTerraformResourceType) and zz_groupversion_info.go (CRDGroup).
set -euo pipefail
provider=$1 git_dir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git --git-dir="$git_dir" rev-parse HEAD)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git --git-dir="$git_dir" grep -A1 'GetTerraformResourceType() string' "$rev" -- 'apis/' |
awk -v rev="$rev" '
  /GetTerraformResourceType\(\) string/ {
    sub("^" rev ":", ""); split($0, a, ":")
    n = split(a[1], p, "/"); dir = p[1] "/" p[2] "/" p[3] "/" p[4]
    match($0, /\(mg \*[A-Za-z0-9]+\)/); kind = substr($0, RSTART + 5, RLENGTH - 6)
    next
  }
  /return "/ { match($0, /"[^"]+"/); print dir "\t" kind "\t" substr($0, RSTART + 1, RLENGTH - 2) }
' | sort -u > "$tmp/rows"
cut -f1 "$tmp/rows" | sort -u | while read -r dir; do
  g=$(git --git-dir="$git_dir" show "$rev:$dir/zz_groupversion_info.go" | sed -n 's/.*CRDGroup *= "\(.*\)".*/\1/p' | head -1)
  [ -n "$g" ] || { echo "kindmap: no CRDGroup in $dir" >&2; exit 1; }
  printf '%s\t%s\n' "$dir" "$g"
done > "$tmp/groups"
awk -F'\t' -v provider="$provider" '
  FILENAME == ARGV[1] {
    if ($1 != provider) next
    id[$2] = $3; tmpl[$2] = ""; arg[$2] = ""; tags[$2] = $7
    if ($3 != "K") next
    if ($4 == "NameAsIdentifier") { tmpl[$2] = "{{ .external_name }}"; arg[$2] = "name" }
    else if ($4 == "ParameterAsIdentifier") { tmpl[$2] = "{{ .external_name }}"; a = $6; gsub(/"/, "", a); arg[$2] = a }
    else if ($4 ~ /^Templated:/) tmpl[$2] = $6
    next
  }
  FILENAME == ARGV[2] { group[$1] = $2; next }
  FILENAME == ARGV[3] { if (provider == "gcp" && $1 !~ /^#/ && $1 != "terraform_resource" && id[$1] == "C") tmpl[$1] = $2; next }
  { print group[$1] "\t" $2 "\t" $3 "\t" (($3 in id) ? id[$3] : "?") "\t" tmpl[$3] "\t" arg[$3] "\t" tags[$3] }
' "$here/testdata/upjet-provider-kinds.tsv" "$tmp/groups" "$here/testdata/google-import-ids.tsv" "$tmp/rows" | sort -u > "$tmp/out"
if awk -F'\t' '{k = $1 "\t" $2; if ((k in tf) && tf[k] != $3) { print "kindmap: " k " has two types: " tf[k] ", " $3 > "/dev/stderr"; bad = 1 } tf[k] = $3 } END { exit bad }' "$tmp/out"; then :; else exit 1; fi
echo "# The managed kinds of crossplane-contrib/provider-upjet-$provider at $rev, both scopes,"
echo "# written by hack/kindmap.sh: group, kind, Terraform resource type, and id:"
echo "# K when the ID is known before the create, C when the cloud assigns it"
echo "# (testdata/upjet-provider-kinds.tsv), ? when that file does not name the type;"
echo "# for a K kind, its Terraform ID template and the argument its external name sets;"
echo "# and when its create sends its tags (request, after, partition-fallback; empty: no tags field)."
printf 'group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n'
awk -F'\t' '!seen[$1 "\t" $2]++' "$tmp/out"
