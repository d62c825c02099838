package recovery

// CreateIncomplete reports whether annotations say a create was begun and
// never recorded as succeeded or failed: crossplane-runtime's
// meta.ExternalCreateIncomplete, which recovery copies to stay
// crossplane-free. Each line's test bed checks the copy against its
// crossplane-runtime.
func CreateIncomplete(annotations map[string]string) bool { return createIncomplete(annotations) }
