// Package e2e runs the Cloud DNS provider (cmd/provider-gcpdns, upjet's
// generated controllers over the real terraform-provider-google) as a
// child process against envtest's kube-apiserver and etcd and the test
// bed's fake Cloud DNS, SIGKILLs it with record set creates in flight,
// and restarts it: the public report's scenario (crossplane/upjet#305),
// unwrapped and with intentjournal. It holds tests only.
package e2e
