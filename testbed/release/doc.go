// Package release holds the consumer test: it versions this checkout the
// way `make release` does, serves the result from a file-based module proxy
// and builds modules outside the tree that require the library and an
// adapter at that version, as a provider author's module would, with no
// replace directive. It also lists the modules a journal-only consumer
// pulls in, so that the test bed, plotting and Terraform plugin modules
// never reach a provider's module graph.
package release
