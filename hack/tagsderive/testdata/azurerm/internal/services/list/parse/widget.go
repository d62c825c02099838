package parse

type WidgetId struct {
	SubscriptionId, ResourceGroup, Name string
}

func NewWidgetID(subscriptionId, resourceGroup, name string) WidgetId {
	return WidgetId{SubscriptionId: subscriptionId, ResourceGroup: resourceGroup, Name: name}
}

func (id WidgetId) ID() string {
	fmtString := "/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Demo/widgets/%s"
	return fmt.Sprintf(fmtString, id.SubscriptionId, id.ResourceGroup, id.Name)
}
