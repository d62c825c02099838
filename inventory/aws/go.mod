module github.com/intentjournal/intentjournal/inventory/aws

go 1.26

require (
	github.com/aws/aws-sdk-go-v2 v1.48.0
	github.com/aws/aws-sdk-go-v2/service/resourcegroupstaggingapi v1.41.12
	github.com/aws/smithy-go v1.28.9
	github.com/google/go-cmp v0.7.0
	github.com/intentjournal/intentjournal v0.1.0
)

require (
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.12 // indirect
)

// The library at this checkout. A replace in a module that is not the
// main module never reaches a consumer; this module stays out of go.work
// so that its dependencies move no other module's (make test-inventory).
replace github.com/intentjournal/intentjournal => ../..
