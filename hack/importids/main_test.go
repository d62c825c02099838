package main

import (
	"strings"
	"testing"
)

// importer is a resource file's importer as terraform-provider-google
// writes it, with its patterns and the ID it sets.
func importer(patterns []string, set string) string {
	return "func resourceImport(d *schema.ResourceData, meta interface{}) ([]*schema.ResourceData, error) {\n" +
		"\tif err := tpgresource.ParseImportId([]string{\n\t\t\"" + strings.Join(patterns, "\",\n\t\t\"") + "\",\n\t}, d, config); err != nil {\n" +
		"\t\treturn nil, err\n\t}\n\tid, err := tpgresource.ReplaceVars(d, config, \"" + set + "\")\n}\n"
}

func TestDerive(t *testing.T) {
	dns := map[string]bool{"project": true, "managed_zone": true, "name": true, "type": true, "rrdatas": true}
	cases := map[string]struct {
		src     string
		params  map[string]bool
		want    string
		wantWhy string
	}{
		"RecordSet": {
			src: importer([]string{"^projects/(?P<project>[^/]+)/managedZones/(?P<managed_zone>[^/]+)/rrsets/(?P<name>[^/]+)/(?P<type>[^/]+)$",
				"^(?P<managed_zone>[^/]+)/(?P<name>[^/]+)/(?P<type>[^/]+)$"}, "projects/{{project}}/managedZones/{{managed_zone}}/rrsets/{{name}}/{{type}}"),
			params: dns,
			want:   "projects/{{ if .parameters.project }}{{ .parameters.project }}{{ else }}{{ .setup.configuration.project }}{{ end }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .parameters.name }}/{{ .parameters.type }}",
		},
		"ProjectOfTheProvider": {
			src:    importer([]string{"^projects/(?P<project>[^/]+)/things/(?P<name>.+)$"}, "projects/{{project}}/things/{{name}}"),
			params: map[string]bool{"name": true},
			want:   "projects/{{ .setup.configuration.project }}/things/{{ .parameters.name }}",
		},
		"NotTheIDItSets": {
			src:     importer([]string{"^(?P<name>.+)$"}, "organizations/{{name}}"),
			params:  map[string]bool{"name": true},
			wantWhy: "is not the ID it sets",
		},
		"ComputedGroup": {
			src:     importer([]string{"^buckets/(?P<bucket>[^/]+)/notificationConfigs/(?P<notification_id>[^/]+)$"}, "buckets/{{bucket}}/notificationConfigs/{{notification_id}}"),
			params:  map[string]bool{"bucket": true},
			wantWhy: "notification_id, in",
		},
		"OtherRegexp": {
			src:     importer([]string{"^zones/(?P<zone>[a-z]+)/x$"}, "zones/{{zone}}/x"),
			params:  map[string]bool{"zone": true},
			wantWhy: "is not the ID it sets",
		},
		"NoImporter": {src: "func resourceCreate() {}", wantWhy: "no ParseImportId"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, why := derive(tc.src, tc.params)
			if tc.wantWhy != "" {
				if !strings.Contains(why, tc.wantWhy) || got != "" {
					t.Fatalf("derive: %q, %q; want no template, why containing %q", got, why, tc.wantWhy)
				}
				return
			}
			if why != "" || got != tc.want {
				t.Fatalf("derive: %q, %q; want %q", got, why, tc.want)
			}
		})
	}
}
