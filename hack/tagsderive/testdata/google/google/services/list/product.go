package list

var Product = registry.Product{
	Name:    "compute",
	BaseUrl: "https://compute.googleapis.com/compute/v1/",
}
