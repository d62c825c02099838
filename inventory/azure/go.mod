module github.com/intentjournal/intentjournal/inventory/azure

go 1.26

require (
	github.com/Azure/azure-sdk-for-go/sdk/azcore v1.21.1
	github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph v0.10.0
	github.com/google/go-cmp v0.7.0
	github.com/intentjournal/intentjournal v0.1.0
)

require (
	github.com/Azure/azure-sdk-for-go/sdk/internal v1.12.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

// The library at this checkout. A replace in a module that is not the
// main module never reaches a consumer; this module stays out of go.work
// so that the Azure SDK moves no other module's dependencies: build and
// test it with GOWORK=off from this directory.
replace github.com/intentjournal/intentjournal => ../..
