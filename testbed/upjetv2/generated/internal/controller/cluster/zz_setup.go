/*
Copyright 2026 The intentjournal Authors.
*/

package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/upjet/v2/pkg/controller"

	address "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/address"
	bucket "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/bucket"
	clinetwork "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/clinetwork"
	clirecordset "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/clirecordset"
	latetagnetwork "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/latetagnetwork"
	namedrecord "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/namedrecord"
	network "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/network"
	record "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/record"
	recordset "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/recordset"
	specrecord "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/fakecloud/specrecord"
	providerconfig "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster/providerconfig"
)

// Setup creates all controllers with the supplied logger and adds them to
// the supplied manager.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	for _, setup := range []func(ctrl.Manager, controller.Options) error{
		address.Setup,
		bucket.Setup,
		clinetwork.Setup,
		clirecordset.Setup,
		latetagnetwork.Setup,
		namedrecord.Setup,
		network.Setup,
		record.Setup,
		recordset.Setup,
		specrecord.Setup,
		providerconfig.Setup,
	} {
		if err := setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

// SetupGated creates all controllers with the supplied logger and adds them to
// the supplied manager gated.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	for _, setup := range []func(ctrl.Manager, controller.Options) error{
		address.SetupGated,
		bucket.SetupGated,
		clinetwork.SetupGated,
		clirecordset.SetupGated,
		latetagnetwork.SetupGated,
		namedrecord.SetupGated,
		network.SetupGated,
		record.SetupGated,
		recordset.SetupGated,
		specrecord.SetupGated,
		providerconfig.SetupGated,
	} {
		if err := setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

// SetupWebhookWithManager registers conversion webhooks for all resource kinds in the group.
func SetupWebhookWithManager(mgr ctrl.Manager) error {
	for _, setup := range []func(ctrl.Manager) error{
		address.SetupWebhookWithManager,
		bucket.SetupWebhookWithManager,
		clinetwork.SetupWebhookWithManager,
		clirecordset.SetupWebhookWithManager,
		latetagnetwork.SetupWebhookWithManager,
		namedrecord.SetupWebhookWithManager,
		network.SetupWebhookWithManager,
		record.SetupWebhookWithManager,
		recordset.SetupWebhookWithManager,
		specrecord.SetupWebhookWithManager,
		providerconfig.SetupWebhookWithManager,
	} {
		if err := setup(mgr); err != nil {
			return err
		}
	}
	return nil
}
