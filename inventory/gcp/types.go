package gcp

// assetTypes maps a terraform-provider-google resource type to the Cloud
// Asset Inventory asset types that hold it: what narrows a search to the
// kind. A type not here is searched across every asset type; the
// crossplane-kind label still narrows it.
var assetTypes = map[string][]string{
	"google_compute_network":       {"compute.googleapis.com/Network"},
	"google_compute_subnetwork":    {"compute.googleapis.com/Subnetwork"},
	"google_compute_instance":      {"compute.googleapis.com/Instance"},
	"google_compute_disk":          {"compute.googleapis.com/Disk"},
	"google_compute_address":       {"compute.googleapis.com/Address"},
	"google_dns_managed_zone":      {"dns.googleapis.com/ManagedZone"},
	"google_storage_bucket":        {"storage.googleapis.com/Bucket"},
	"google_pubsub_topic":          {"pubsub.googleapis.com/Topic"},
	"google_pubsub_subscription":   {"pubsub.googleapis.com/Subscription"},
	"google_container_cluster":     {"container.googleapis.com/Cluster"},
	"google_sql_database_instance": {"sqladmin.googleapis.com/Instance"},
	"google_bigquery_dataset":      {"bigquery.googleapis.com/Dataset"},
	"google_kms_crypto_key":        {"cloudkms.googleapis.com/CryptoKey"},
	"google_redis_instance":        {"redis.googleapis.com/Instance"},
	"google_secret_manager_secret": {"secretmanager.googleapis.com/Secret"},
}

// AssetTypes returns the Cloud Asset Inventory asset types of the
// terraform-provider-google resource type tfResource, or nil (every type)
// for one this package does not map. The slice is a copy.
func AssetTypes(tfResource string) []string {
	t, ok := assetTypes[tfResource]
	if !ok {
		return nil
	}
	return append([]string(nil), t...)
}
