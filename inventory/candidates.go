package inventory

import (
	"strings"
)

// Candidates returns the Terraform IDs the cloud identifier id may stand
// for, most specific first and each once: the identifier itself (an Azure
// ARM ID is its resource's Terraform ID); for a GCP full resource name
// (//compute.googleapis.com/projects/p/global/networks/n), the relative
// name after the service (projects/p/global/networks/n), as
// terraform-provider-google's IDs are; for an AWS ARN
// (arn:aws:ec2:us-east-1:123456789012:vpc/vpc-0abc), the resource part
// (vpc/vpc-0abc) and its last segment (vpc-0abc), as most of
// terraform-provider-aws's IDs are; and the last segment of any path. None
// is taken on trust: the finder observes each with the kind's own Observe
// and accepts one only where the observed resource's identifier attribute
// (arn, self_link, id) equals id.
func Candidates(id string) []string {
	var out []string
	add := func(c string) {
		if c == "" {
			return
		}
		for _, seen := range out {
			if seen == c {
				return
			}
		}
		out = append(out, c)
	}
	add(id)
	switch {
	case strings.HasPrefix(id, "arn:"):
		// arn:partition:service:region:account:resource
		if parts := strings.SplitN(id, ":", 6); len(parts) == 6 {
			res := parts[5]
			add(res)
			add(lastSegment(res))
			if _, after, ok := strings.Cut(res, ":"); ok {
				add(after) // resource-type:resource-id
			}
		}
	case strings.HasPrefix(id, "//"):
		// //service.googleapis.com/relative/name
		if _, rel, ok := strings.Cut(strings.TrimPrefix(id, "//"), "/"); ok {
			add(rel)
			add(lastSegment(rel))
		}
	default:
		add(lastSegment(id))
	}
	return out
}

// lastSegment returns what follows the last slash of s, or "" when s has
// none or ends with one.
func lastSegment(s string) string {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return ""
	}
	return s[i+1:]
}

// SameResource reports whether listed, an identifier a Lister returned,
// and observed, an identifier attribute a provider's Observe reports of
// the resource at a candidate ID (arn, self_link, id), name the same
// resource: equal; equal but for case, for two Azure ARM IDs (ARM is
// case-insensitive); or, for a GCP full resource name
// (//compute.googleapis.com/projects/p/global/networks/n), the same
// relative name as a self link
// (https://www.googleapis.com/compute/v1/projects/p/global/networks/n) or
// a Terraform ID (projects/p/global/networks/n).
func SameResource(listed, observed string) bool {
	switch {
	case listed == "" || observed == "":
		return false
	case listed == observed:
		return true
	case strings.HasPrefix(listed, "/subscriptions/") && strings.HasPrefix(strings.ToLower(observed), "/subscriptions/"):
		return strings.EqualFold(listed, observed)
	case strings.HasPrefix(listed, "//"):
		_, rel, ok := strings.Cut(strings.TrimPrefix(listed, "//"), "/")
		return ok && rel != "" && (observed == rel || strings.HasSuffix(observed, "/"+rel) && isGoogleLink(observed, rel))
	}
	return false
}

// isGoogleLink reports whether link is a GCP self link whose path ends
// with the relative name rel after the API's service and version:
// https://www.googleapis.com/compute/v1/<rel>, or a service's own host
// (https://dns.googleapis.com/dns/v1/<rel>).
func isGoogleLink(link, rel string) bool {
	rest, ok := strings.CutPrefix(link, "https://")
	if !ok {
		return false
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok || !strings.HasSuffix(host, ".googleapis.com") {
		return false
	}
	// path is <service>/<version>/<rel>
	parts := strings.SplitN(path, "/", 3)
	return len(parts) == 3 && parts[2] == rel
}
