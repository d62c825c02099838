package recovery

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEventBudget(t *testing.T) {
	cases := []struct {
		name         string
		budget       *eventBudget
		takes        int
		wantPosted   []bool
		wantWithheld int
	}{
		{name: "WithinTheLimit", budget: &eventBudget{left: 2}, takes: 2, wantPosted: []bool{true, true}},
		{name: "BeyondTheLimit", budget: &eventBudget{left: 2}, takes: 4, wantPosted: []bool{true, true, false, false}, wantWithheld: 2},
		{name: "NoLimit", budget: &eventBudget{left: -1}, takes: 3, wantPosted: []bool{true, true, true}},
		{name: "OutsideAPass", budget: nil, takes: 2, wantPosted: []bool{true, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := eventBudgetFrom(withEventBudget(context.Background(), tc.budget))
			var got []bool
			for range tc.takes {
				got = append(got, b.take())
			}
			if diff := cmp.Diff(tc.wantPosted, got); diff != "" {
				t.Errorf("posted (-want +got):\n%s", diff)
			}
			if b != nil && b.withheldEvents() != tc.wantWithheld {
				t.Errorf("withheld %d, want %d", b.withheldEvents(), tc.wantWithheld)
			}
		})
	}
	if b := eventBudgetFrom(context.Background()); b != nil {
		t.Errorf("a context with no pass has budget %+v, want none", b)
	}
}
