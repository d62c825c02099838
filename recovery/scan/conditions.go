package scan

import (
	"fmt"
	"time"
)

// condition is one entry of a managed resource's status.conditions, as
// crossplane-runtime writes them (xpv1.Condition), read from unstructured
// content.
type condition struct {
	Type, Status, Reason, Message string
	LastTransitionTime            time.Time
}

// conditionList is a managed resource's status.conditions.
type conditionList []condition

// conditions decodes status.conditions of obj, an object's unstructured
// content. It never fails and never panics: a field of the wrong type reads
// as absent, a list entry that is no object is skipped, and an unparsable
// time is zero, so that one malformed condition hides nothing else.
func conditions(obj map[string]any) conditionList {
	status, _ := obj["status"].(map[string]any)
	raw, _ := status["conditions"].([]any)
	out := make(conditionList, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		c := condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")}
		if t, err := time.Parse(time.RFC3339, str("lastTransitionTime")); err == nil {
			c.LastTransitionTime = t
		}
		if c.Type != "" {
			out = append(out, c)
		}
	}
	return out
}

// of returns the condition of type typ; the last one when a malformed
// status lists it twice.
func (l conditionList) of(typ string) (condition, bool) {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].Type == typ {
			return l[i], true
		}
	}
	return condition{}, false
}

// evidence quotes the condition as one sentence.
func (c condition) evidence() string {
	since := ""
	if !c.LastTransitionTime.IsZero() {
		since = " since " + c.LastTransitionTime.UTC().Format(time.RFC3339)
	}
	reason := ""
	if c.Reason != "" {
		reason = " (" + c.Reason + ")"
	}
	return fmt.Sprintf("%s is %s%s%s: %s", c.Type, c.Status, since, reason, quote(c.Message))
}
