// Package strategy derives, for every kind of an upjet-generated provider,
// how the recovery pass can find what an interrupted create made, from the
// kind's external-name configuration alone: no Finder written per kind.
//
// A Strategy is chosen by Classify from a kind's Facts, in this order:
//
//	ID known before the create (K)        observe-by-name      Observe (a Terraform read) by the ID the create would have made
//	cloud-assigned (C), with an ID
//	  template that needs no external name observe-by-template  Observe by the ID the kind's template renders from spec and setup
//	cloud-assigned, with a tags field     list-by-tags         list by the crossplane tags the create sent (a per-cloud lister)
//	anything else                         report-only          nothing can be looked up; an unsettled create is reported
//
// A K kind is observe-by-name whether or not a template is given: its
// provider's own GetIDFn builds the ID, and a second copy of that rule
// could only drift. A template comes before tags because it names one
// resource exactly, where tags need the cloud to have kept them.
//
// Expect tells, from a kind's Facts and what its provider runs with (Env),
// what becomes of a create of it that a crash interrupted: adopted with no
// operator (and on which proof), reported, or could duplicate (an empty
// listing that proves nothing clears the intent), which must never be.
// Measure counts strategies and outcomes per provider and compares each
// outcome with Goal, an expectation read from the kinds file's own columns
// rather than through Classify, so that the goal can fail.
//
// # The kinds file
//
// DecodeKinds reads the tab-separated kinds file of testdata/
// (upjet-provider-kinds.tsv): a header line
//
//	provider	terraform_resource	id_known_before_create	external_name_config	tags_or_labels_field	detail	tags_at_create	tags_at_create_evidence
//
// then one kind a line with exactly those eight columns: the provider (aws,
// gcp, azure, or any lower-case name), the Terraform resource type, K or C,
// the external-name configuration (NameAsIdentifier, IdentifierFromProvider,
// Templated:..., custom:<function>), the comma-separated tags or labels
// fields of spec.forProvider (empty when none), a free-text detail (the
// upjet template or the parameter), when the kind's create sends its
// tags: request, after (a call after the one that makes the resource) or
// partition-fallback (after, in an AWS partition without tag-on-create),
// empty for a kind with no tags field, and where that was read (the file
// and line of the Terraform provider's source, from hack/tagsderive, or
// why a value is kept), empty for a kind with no tags field. A file with
// the first seven columns alone (and their header) is read too, with no
// evidence. The decoder is strict: a wrong header (the six-column file
// from before tags_at_create among them), column count, K/C value, empty
// name, tags_at_create value, missing evidence, control character or
// duplicate kind is an error naming the line, wrapping ErrBadKinds.
//
// # The templates file
//
// DecodeTemplates reads an ID template per Terraform resource type:
//
//	# comment
//	google_dns_record_set	projects/{{ .parameters.project }}/...
//
// Each line not blank and not a comment (first non-blank character #) is
// the resource type, one tab, and the template, up to the end of the line,
// taken as it is: it may hold further tabs, but no leading or trailing
// blanks. A template is upjet's (config.TemplatedStringAsIdentifier): Go
// text/template with the functions ToLower and ToUpper (and intentjournal's
// TrimPrefix and TrimSuffix, affix first), executed on
//
//	.parameters     the Terraform arguments of spec.forProvider, with
//	                spec.initProvider merged under it as upjet merges it
//	                (snake_case)
//	.setup          .setup.configuration (the Terraform provider configuration)
//	                and .setup.client_metadata (e.g. account_id on AWS)
//	.external_name  the crossplane.io/external-name annotation
//
// and may reference nothing else. Errors name the line and wrap
// ErrBadTemplate. The defaults, templates/default.tsv, are built in
// (DefaultTemplates).
package strategy
